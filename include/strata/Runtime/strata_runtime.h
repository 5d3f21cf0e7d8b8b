/*===- strata_runtime.h - C API of the Strata runtime -------------*- C -*-===*
 *
 * Loads a compiled model (.strata artifact), verifies it, and runs it.
 *
 *   strata_model *model = NULL;
 *   strata_status *st = strata_model_load_file("net.strata", &model);
 *   if (st) { fprintf(stderr, "%s\n", strata_status_message(st));
 *             strata_status_free(st); return 1; }
 *   strata_session *s = NULL;
 *   st = strata_session_create(model, 0, &s);            (0 threads: all cores)
 *   st = strata_session_set_input(s, 0, STRATA_DTYPE_F32, shape, 2, data,
 *                                 bytes);
 *   st = strata_session_run(s);
 *   strata_tensor_view out;
 *   st = strata_session_output(s, 0, &out);              (out.data, out.dims)
 *   strata_session_release(s); strata_model_release(model);
 *
 * Every function that can fail returns a strata_status: NULL means success,
 * anything else is an error the caller frees with strata_status_free. No
 * function aborts or throws on bad input. A model is immutable after loading
 * and may be shared by sessions on several threads; one session is used by
 * one thread at a time. docs/runtime.md describes the API.
 *
 *===----------------------------------------------------------------------===*/

#ifndef STRATA_RUNTIME_H
#define STRATA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The numbering is the artifact schema's DType. */
typedef enum strata_dtype {
  STRATA_DTYPE_UNKNOWN = 0,
  STRATA_DTYPE_F32,
  STRATA_DTYPE_F16,
  STRATA_DTYPE_BF16,
  STRATA_DTYPE_F64,
  STRATA_DTYPE_I8,
  STRATA_DTYPE_U8,
  STRATA_DTYPE_I16,
  STRATA_DTYPE_U16,
  STRATA_DTYPE_I32,
  STRATA_DTYPE_U32,
  STRATA_DTYPE_I64,
  STRATA_DTYPE_U64,
  STRATA_DTYPE_BOOL,
  /* Format 1.1: the narrow types (ONNX INT4 .. FLOAT8E8M0, ml_dtypes' int4 ..
     float8_e8m0fnu), one byte per element: 4/2-bit integers sign- (signed) or
     zero-extended (unsigned), small floats as their bit pattern in the low
     bits. */
  STRATA_DTYPE_I4,
  STRATA_DTYPE_U4,
  STRATA_DTYPE_I2,
  STRATA_DTYPE_U2,
  STRATA_DTYPE_F8E4M3FN,
  STRATA_DTYPE_F8E4M3FNUZ,
  STRATA_DTYPE_F8E5M2,
  STRATA_DTYPE_F8E5M2FNUZ,
  STRATA_DTYPE_F4E2M1FN,
  STRATA_DTYPE_F8E8M0FNU
} strata_dtype;

typedef enum strata_status_code {
  STRATA_OK = 0,
  STRATA_INVALID_ARGUMENT, /* a wrong argument: index, name, shape, dtype */
  STRATA_INVALID_ARTIFACT, /* the artifact failed verification */
  STRATA_IO_ERROR,         /* the file cannot be read */
  STRATA_UNSUPPORTED,      /* e.g. a device no driver of this runtime has */
  STRATA_RUN_FAILED,       /* a dispatch returned an error */
  STRATA_OUT_OF_MEMORY,
  STRATA_INTERNAL
} strata_status_code;

typedef struct strata_status strata_status;
typedef struct strata_model strata_model;
typedef struct strata_session strata_session;

/* An input or output of the signature. `dims` has `rank` entries, -1 for a
 * dim decided per variant; the pointers live as long as the model. */
typedef struct strata_tensor_info {
  const char *name;
  strata_dtype dtype;
  size_t rank;
  const int64_t *dims;
  int has_quant; /* 1: scale and zero_point are set */
  double scale;
  int64_t zero_point;
} strata_tensor_info;

/* An output after a run: valid until the next run or release of the
 * session. */
typedef struct strata_tensor_view {
  const char *name;
  strata_dtype dtype;
  size_t rank;
  const int64_t *dims;
  const void *data;
  size_t size_bytes;
} strata_tensor_view;

/* ---- status ---- */
strata_status_code strata_status_get_code(const strata_status *status);
const char *strata_status_message(const strata_status *status);
void strata_status_free(strata_status *status);

/* ---- dtypes ---- */
const char *strata_dtype_name(strata_dtype dtype); /* "f32", ... */
size_t strata_dtype_size(strata_dtype dtype);      /* bytes; 0 if unknown */

/* ---- models ---- */
/* Maps the file read-only and verifies it. */
strata_status *strata_model_load_file(const char *path, strata_model **out);
/* Copies `size` bytes (the caller may free `data` afterwards), verifies. */
strata_status *strata_model_load_memory(const void *data, size_t size,
                                        strata_model **out);
void strata_model_release(strata_model *model);

strata_status *strata_model_name(const strata_model *model, const char **out);
strata_status *strata_model_input_count(const strata_model *model, size_t *out);
strata_status *strata_model_output_count(const strata_model *model,
                                         size_t *out);
strata_status *strata_model_input_info(const strata_model *model, size_t index,
                                       strata_tensor_info *out);
strata_status *strata_model_output_info(const strata_model *model, size_t index,
                                        strata_tensor_info *out);
/* The index of the input named `name`. */
strata_status *strata_model_find_input(const strata_model *model,
                                       const char *name, size_t *out);
strata_status *strata_model_variant_count(const strata_model *model,
                                          size_t *out);
/* The static shape of input (is_output 0) or output (is_output 1) `index`
 * in variant `variant`: what strata_session_set_input must be given to run
 * that variant. An output dim decided at run time (format 1.2: NonZero,
 * Unique, ...) is -1; strata_session_output gives its value after a run.
 * `*dims` lives as long as the model. */
strata_status *strata_model_variant_shape(const strata_model *model,
                                          size_t variant, int is_output,
                                          size_t index, size_t *rank,
                                          const int64_t **dims);

/* ---- artifact contents (read only; what `strata inspect` prints) ---- */

/* Where a buffer of a variant lives; the numbering is the artifact schema's
 * BufferKind. */
typedef enum strata_buffer_kind {
  STRATA_BUFFER_ARENA = 0,   /* at `offset` in the variant's arena */
  STRATA_BUFFER_INPUT = 1,   /* input number `index` */
  STRATA_BUFFER_OUTPUT = 2,  /* output number `index` */
  STRATA_BUFFER_CONSTANT = 3 /* at `offset` in the data segment */
} strata_buffer_kind;

/* The numbering is the artifact schema's DispatchKind. */
typedef enum strata_dispatch_kind {
  STRATA_DISPATCH_NATIVE = 0, /* function `symbol` of executable `executable` */
  STRATA_DISPATCH_KERNEL = 1  /* the device driver's built-in kernel `symbol` */
} strata_dispatch_kind;

typedef struct strata_artifact_info {
  const char *producer;   /* "" when the file names none */
  unsigned version_major; /* format version of the file */
  unsigned version_minor;
  uint64_t file_size;      /* bytes */
  uint64_t data_size;      /* the data segment: constants and code */
  uint64_t constants_size; /* bytes of the data segment that constant
                              buffers cover (shared ranges counted once) */
  size_t executable_count;
} strata_artifact_info;

typedef struct strata_variant_info {
  uint64_t arena_size; /* bytes */
  size_t buffer_count;
  size_t dispatch_count;
} strata_variant_info;

typedef struct strata_buffer_info {
  strata_buffer_kind kind;
  uint32_t index;  /* input/output number (INPUT/OUTPUT) */
  uint64_t offset; /* arena (ARENA) or data-segment (CONSTANT) offset */
  uint64_t size_bytes;
  strata_dtype dtype;
  size_t rank;
  const int64_t *dims;
} strata_buffer_info;

typedef struct strata_dispatch_info {
  const char *device; /* "cpu" */
  strata_dispatch_kind kind;
  uint32_t executable; /* index of the executable (NATIVE) */
  const char *symbol;  /* function (NATIVE) or kernel (KERNEL) name */
  size_t binding_count;
  const uint32_t *bindings; /* buffer indices of the variant, in order */
  size_t param_count;
  const int64_t *params;
  int64_t workgroup_count;
} strata_dispatch_info;

typedef struct strata_executable_info {
  const char *name;
  const char *device;
  const char *format;   /* "elf-x86_64" */
  uint64_t code_offset; /* in the data segment */
  uint64_t code_size;
  size_t symbol_count;
} strata_executable_info;

/* The pointers in these structs live as long as the model. */
strata_status *strata_model_artifact_info(const strata_model *model,
                                          strata_artifact_info *out);
strata_status *strata_model_variant_info(const strata_model *model,
                                         size_t variant,
                                         strata_variant_info *out);
strata_status *strata_model_buffer_info(const strata_model *model,
                                        size_t variant, size_t buffer,
                                        strata_buffer_info *out);
strata_status *strata_model_dispatch_info(const strata_model *model,
                                          size_t variant, size_t dispatch,
                                          strata_dispatch_info *out);
strata_status *strata_model_executable_info(const strata_model *model,
                                            size_t executable,
                                            strata_executable_info *out);
strata_status *strata_model_executable_symbol(const strata_model *model,
                                              size_t executable, size_t symbol,
                                              const char **out);

/* ---- sessions ---- */
/* A session owns the arena, inputs, outputs and a pool of `threads` threads
 * (0: one per hardware core; 1: run on the caller's thread only). */
strata_status *strata_session_create(strata_model *model, size_t threads,
                                     strata_session **out);
void strata_session_release(strata_session *session);
strata_status *strata_session_thread_count(const strata_session *session,
                                           size_t *out);

/* Copies input `index`: `dtype` must be the signature's, the shape (`rank`
 * dims) must fit the signature and selects the variant, and `size_bytes`
 * must equal the shape's size. */
strata_status *strata_session_set_input(strata_session *session, size_t index,
                                        strata_dtype dtype, const int64_t *dims,
                                        size_t rank, const void *data,
                                        size_t size_bytes);
strata_status *strata_session_set_input_by_name(
    strata_session *session, const char *name, strata_dtype dtype,
    const int64_t *dims, size_t rank, const void *data, size_t size_bytes);
/* Runs the variant whose input shapes match the inputs set; every input
 * must be set. */
strata_status *strata_session_run(strata_session *session);
strata_status *strata_session_output(const strata_session *session,
                                     size_t index, strata_tensor_view *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STRATA_RUNTIME_H */
