// FFmpeg, loaded on first use (lomme_lazy.h): the functions LommeCamera/FrameSource.swift
// calls, from five libraries. Only `import --camera` and `scan --camera` reach them: no other
// command loads FFmpeg (and the codecs, X11 and sound libraries it pulls in).
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libswscale/swscale.h>
#include <libavutil/dict.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <lomme_lazy_stub.h>
#define FORMAT LOMME_LIBRARY_AVFORMAT, READING
#define CODEC LOMME_LIBRARY_AVCODEC, READING
#define DEVICE LOMME_LIBRARY_AVDEVICE, READING
#define SCALE LOMME_LIBRARY_SWSCALE, READING
#define UTIL LOMME_LIBRARY_AVUTIL, READING

LAZY_VOID(DEVICE, avdevice_register_all, (void), ())

LAZY(FORMAT, const AVInputFormat *, av_find_input_format, (const char *short_name), (short_name))
LAZY(FORMAT, AVFormatContext *, avformat_alloc_context, (void), ())
LAZY(FORMAT, int, avformat_open_input,
     (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options),
     (ps, url, fmt, options))
LAZY(FORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options))
LAZY(FORMAT, int, av_find_best_stream,
     (AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream,
      const AVCodec **decoder_ret, int flags),
     (ic, type, wanted_stream_nb, related_stream, decoder_ret, flags))
LAZY(FORMAT, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))
LAZY_VOID(FORMAT, avformat_close_input, (AVFormatContext **s), (s))

LAZY(CODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec))
LAZY(CODEC, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), (codec, par))
LAZY(CODEC, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options),
     (avctx, codec, options))
LAZY(CODEC, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt))
LAZY(CODEC, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame))
LAZY_VOID(CODEC, avcodec_free_context, (AVCodecContext **avctx), (avctx))
LAZY(CODEC, AVPacket *, av_packet_alloc, (void), ())
LAZY_VOID(CODEC, av_packet_free, (AVPacket **pkt), (pkt))
LAZY_VOID(CODEC, av_packet_unref, (AVPacket *pkt), (pkt))

LAZY(SCALE, struct SwsContext *, sws_getCachedContext,
     (struct SwsContext *context, int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH,
      enum AVPixelFormat dstFormat, int flags, SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param),
     (context, srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param))
LAZY(SCALE, int, sws_scale,
     (struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY, int srcSliceH,
      uint8_t *const dst[], const int dstStride[]),
     (c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride))
LAZY_VOID(SCALE, sws_freeContext, (struct SwsContext *swsContext), (swsContext))

LAZY(UTIL, AVFrame *, av_frame_alloc, (void), ())
LAZY_VOID(UTIL, av_frame_free, (AVFrame **frame), (frame))
LAZY_VOID(UTIL, av_frame_unref, (AVFrame *frame), (frame))
LAZY(UTIL, int, av_dict_set, (AVDictionary **pm, const char *key, const char *value, int flags), (pm, key, value, flags))
LAZY_VOID(UTIL, av_dict_free, (AVDictionary **m), (m))
LAZY(UTIL, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size))
LAZY_VOID(UTIL, av_log_set_level, (int level), (level))
