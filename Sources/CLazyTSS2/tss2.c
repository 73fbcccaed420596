// tpm2-tss, loaded on first use (lomme_lazy.h): the functions LommeTPM calls, from four
// libraries: ESYS (the commands), the TCTI loader (which itself dlopens the TCTI a string
// names: device, swtpm, mssim), MU (marshalling the sealed blobs) and RC (error texts).
// Only the commands that reach a TPM use them, and all of them make something: MAKING.
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <lomme_lazy_stub.h>
#define E LOMME_LIBRARY_ESYS, MAKING
#define T LOMME_LIBRARY_TCTILDR, MAKING
#define M LOMME_LIBRARY_MU, MAKING
#define R LOMME_LIBRARY_RC, MAKING

LAZY(T, TSS2_RC, Tss2_TctiLdr_Initialize, (const char *nameConf, TSS2_TCTI_CONTEXT **context), (nameConf, context))
LAZY_VOID(T, Tss2_TctiLdr_Finalize, (TSS2_TCTI_CONTEXT **context), (context))

LAZY(E, TSS2_RC, Esys_Initialize, (ESYS_CONTEXT **esys_context, TSS2_TCTI_CONTEXT *tcti, TSS2_ABI_VERSION *abiVersion),
     (esys_context, tcti, abiVersion))
LAZY_VOID(E, Esys_Finalize, (ESYS_CONTEXT **context), (context))
LAZY_VOID(E, Esys_Free, (void *__ptr), (__ptr))
LAZY(E, TSS2_RC, Esys_TR_SetAuth, (ESYS_CONTEXT *esysContext, ESYS_TR handle, TPM2B_AUTH const *authValue),
     (esysContext, handle, authValue))
LAZY(E, TSS2_RC, Esys_TR_GetName, (ESYS_CONTEXT *esysContext, ESYS_TR handle, TPM2B_NAME **name),
     (esysContext, handle, name))
LAZY(E, TSS2_RC, Esys_TRSess_SetAttributes, (ESYS_CONTEXT *esysContext, ESYS_TR session, TPMA_SESSION flags, TPMA_SESSION mask),
     (esysContext, session, flags, mask))
LAZY(E, TSS2_RC, Esys_StartAuthSession,
     (ESYS_CONTEXT *esysContext, ESYS_TR tpmKey, ESYS_TR bind, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
      const TPM2B_NONCE *nonceCaller, TPM2_SE sessionType, const TPMT_SYM_DEF *symmetric, TPMI_ALG_HASH authHash,
      ESYS_TR *sessionHandle),
     (esysContext, tpmKey, bind, shandle1, shandle2, shandle3, nonceCaller, sessionType, symmetric, authHash, sessionHandle))
LAZY(E, TSS2_RC, Esys_CreatePrimary,
     (ESYS_CONTEXT *esysContext, ESYS_TR primaryHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
      const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic, const TPM2B_DATA *outsideInfo,
      const TPML_PCR_SELECTION *creationPCR, ESYS_TR *objectHandle, TPM2B_PUBLIC **outPublic,
      TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket),
     (esysContext, primaryHandle, shandle1, shandle2, shandle3, inSensitive, inPublic, outsideInfo, creationPCR,
      objectHandle, outPublic, creationData, creationHash, creationTicket))
LAZY(E, TSS2_RC, Esys_Create,
     (ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
      const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic, const TPM2B_DATA *outsideInfo,
      const TPML_PCR_SELECTION *creationPCR, TPM2B_PRIVATE **outPrivate, TPM2B_PUBLIC **outPublic,
      TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket),
     (esysContext, parentHandle, shandle1, shandle2, shandle3, inSensitive, inPublic, outsideInfo, creationPCR,
      outPrivate, outPublic, creationData, creationHash, creationTicket))
LAZY(E, TSS2_RC, Esys_Load,
     (ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
      const TPM2B_PRIVATE *inPrivate, const TPM2B_PUBLIC *inPublic, ESYS_TR *objectHandle),
     (esysContext, parentHandle, shandle1, shandle2, shandle3, inPrivate, inPublic, objectHandle))
LAZY(E, TSS2_RC, Esys_Unseal,
     (ESYS_CONTEXT *esysContext, ESYS_TR itemHandle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
      TPM2B_SENSITIVE_DATA **outData),
     (esysContext, itemHandle, shandle1, shandle2, shandle3, outData))
LAZY(E, TSS2_RC, Esys_FlushContext, (ESYS_CONTEXT *esysContext, ESYS_TR flushHandle), (esysContext, flushHandle))
LAZY(E, TSS2_RC, Esys_PolicyPCR,
     (ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
      const TPM2B_DIGEST *pcrDigest, const TPML_PCR_SELECTION *pcrs),
     (esysContext, policySession, shandle1, shandle2, shandle3, pcrDigest, pcrs))
LAZY(E, TSS2_RC, Esys_PolicyAuthValue,
     (ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3),
     (esysContext, policySession, shandle1, shandle2, shandle3))
LAZY(E, TSS2_RC, Esys_PolicyGetDigest,
     (ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
      TPM2B_DIGEST **policyDigest),
     (esysContext, policySession, shandle1, shandle2, shandle3, policyDigest))
LAZY(E, TSS2_RC, Esys_GetCapability,
     (ESYS_CONTEXT *esysContext, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3, TPM2_CAP capability,
      UINT32 property, UINT32 propertyCount, TPMI_YES_NO *moreData, TPMS_CAPABILITY_DATA **capabilityData),
     (esysContext, shandle1, shandle2, shandle3, capability, property, propertyCount, moreData, capabilityData))

LAZY(M, TSS2_RC, Tss2_MU_TPM2B_PUBLIC_Marshal,
     (TPM2B_PUBLIC const *src, uint8_t buffer[], size_t buffer_size, size_t *offset), (src, buffer, buffer_size, offset))
LAZY(M, TSS2_RC, Tss2_MU_TPM2B_PUBLIC_Unmarshal,
     (uint8_t const buffer[], size_t buffer_size, size_t *offset, TPM2B_PUBLIC *dest), (buffer, buffer_size, offset, dest))
LAZY(M, TSS2_RC, Tss2_MU_TPM2B_PRIVATE_Marshal,
     (TPM2B_PRIVATE const *src, uint8_t buffer[], size_t buffer_size, size_t *offset), (src, buffer, buffer_size, offset))
LAZY(M, TSS2_RC, Tss2_MU_TPM2B_PRIVATE_Unmarshal,
     (uint8_t const buffer[], size_t buffer_size, size_t *offset, TPM2B_PRIVATE *dest), (buffer, buffer_size, offset, dest))

LAZY(R, const char *, Tss2_RC_Decode, (TSS2_RC rc), (rc))
