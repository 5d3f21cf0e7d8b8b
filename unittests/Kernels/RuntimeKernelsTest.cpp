// filled in with the runtime kernels
