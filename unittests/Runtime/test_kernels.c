/* Dispatch functions for the runtime's tests, built as a shared object at
 * build time and put into artifacts as an "elf-x86_64" executable. They use
 * the native dispatch ABI of docs/runtime.md. */
#include <stdint.h>

static void split(int64_t n, int64_t id, int64_t count, int64_t *begin,
                  int64_t *end) {
  int64_t chunk = n / count, rest = n % count;
  *begin = id * chunk + (id < rest ? id : rest);
  *end = *begin + chunk + (id < rest ? 1 : 0);
}

/* bindings (x, c, y), params (n): y[i] = 2 * x[i] + c[i]. */
int axpy_f32(void *const *bindings, const int64_t *params, int64_t id,
             int64_t count) {
  const float *x = (const float *)bindings[0];
  const float *c = (const float *)bindings[1];
  float *y = (float *)bindings[2];
  int64_t begin, end;
  split(params[0], id, count, &begin, &end);
  for (int64_t i = begin; i < end; ++i)
    y[i] = 2.0f * x[i] + c[i];
  return 0;
}

/* bindings (x, y), params (n): y[i] = x[i] * (workgroup id + 1) for the
 * elements of each workgroup: shows which workgroup wrote what. */
int tag_workgroup(void *const *bindings, const int64_t *params, int64_t id,
                  int64_t count) {
  const float *x = (const float *)bindings[0];
  float *y = (float *)bindings[1];
  int64_t begin, end;
  split(params[0], id, count, &begin, &end);
  for (int64_t i = begin; i < end; ++i)
    y[i] = x[i] * (float)(id + 1);
  return 0;
}

/* Fails in workgroup params[0]. */
int fail_in(void *const *bindings, const int64_t *params, int64_t id,
            int64_t count) {
  (void)bindings;
  (void)count;
  return id == params[0] ? 7 : 0;
}
