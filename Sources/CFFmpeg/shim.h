// FFmpeg's demuxers (libavformat), webcam input (libavdevice: V4L2), decoders (libavcodec),
// pixel conversion (libswscale) and their utilities (libavutil): headers only, loaded with
// dlopen by CLazyFFmpeg (Sources/CLazyLibraries/include/lomme_lazy.h).
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
#include <libavutil/log.h>
