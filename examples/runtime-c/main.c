/* Runs a compiled Strata model (.strata) through the runtime's C API.
 *
 *   runtime-c MODEL.strata [VARIANT]
 *
 * Prints the signature, fills every input of the chosen variant (default 0)
 * with 1, 2, 3, ... and prints every output. Links only Strata::Runtime. */
#include "strata/Runtime/strata_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(strata_status *st) {
  if (!st)
    return 0;
  fprintf(stderr, "error: %s\n", strata_status_message(st));
  strata_status_free(st);
  return 1;
}

static void printShape(size_t rank, const int64_t *dims) {
  printf("[");
  for (size_t i = 0; i < rank; ++i)
    printf("%s%lld", i ? ", " : "", (long long)dims[i]);
  printf("]");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: runtime-c MODEL.strata [VARIANT]\n");
    return 2;
  }
  size_t variant = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 0;
  strata_model *model = NULL;
  if (check(strata_model_load_file(argv[1], &model)))
    return 1;
  const char *name;
  size_t inputs, outputs, variants;
  if (check(strata_model_name(model, &name)) ||
      check(strata_model_input_count(model, &inputs)) ||
      check(strata_model_output_count(model, &outputs)) ||
      check(strata_model_variant_count(model, &variants)))
    return 1;
  printf("model '%s': %zu inputs, %zu outputs, %zu variants\n", name, inputs,
         outputs, variants);

  strata_session *session = NULL;
  if (check(strata_session_create(model, 2, &session)))
    return 1;
  int rc = 0;
  for (size_t i = 0; i < inputs && rc == 0; ++i) {
    strata_tensor_info info;
    size_t rank;
    const int64_t *dims;
    if ((rc = check(strata_model_input_info(model, i, &info))) ||
        (rc = check(strata_model_variant_shape(model, variant, 0, i, &rank,
                                               &dims))))
      break;
    if (info.dtype != STRATA_DTYPE_F32) {
      fprintf(stderr, "error: this example fills f32 inputs only\n");
      rc = 1;
      break;
    }
    size_t count = 1;
    for (size_t d = 0; d < rank; ++d)
      count *= (size_t)dims[d];
    float *data = malloc(count * sizeof(float) + 1);
    for (size_t k = 0; k < count; ++k)
      data[k] = (float)(k + 1);
    printf("input %zu '%s' %s ", i, info.name, strata_dtype_name(info.dtype));
    printShape(rank, dims);
    printf("\n");
    rc = check(strata_session_set_input(session, i, info.dtype, dims, rank,
                                        data, count * sizeof(float)));
    free(data);
  }
  if (rc == 0)
    rc = check(strata_session_run(session));
  for (size_t o = 0; o < outputs && rc == 0; ++o) {
    strata_tensor_view out;
    if ((rc = check(strata_session_output(session, o, &out))))
      break;
    printf("output %zu '%s' %s ", o, out.name, strata_dtype_name(out.dtype));
    printShape(out.rank, out.dims);
    printf(":");
    if (out.dtype == STRATA_DTYPE_F32)
      for (size_t k = 0; k < out.size_bytes / sizeof(float); ++k)
        printf(" %g", ((const float *)out.data)[k]);
    printf("\n");
  }
  strata_session_release(session);
  strata_model_release(model);
  return rc;
}
