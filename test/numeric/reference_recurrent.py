"""numpy references of ONNX LSTM / GRU / RNN, written from the ONNX operator
spec step by step (one batch entry and one direction at a time, in f64)."""
import numpy as np

ACTIVATIONS = {
    "Relu": lambda x, a, b: np.maximum(x, 0),
    "Tanh": lambda x, a, b: np.tanh(x),
    "Sigmoid": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "Affine": lambda x, a, b: a * x + b,
    "LeakyRelu": lambda x, a, b: np.where(x >= 0, x, a * x),
    "ThresholdedRelu": lambda x, a, b: np.where(x >= a, x, 0),
    "ScaledTanh": lambda x, a, b: a * np.tanh(b * x),
    "HardSigmoid": lambda x, a, b: np.clip(a * x + b, 0, 1),
    "Elu": lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1)),
    "Softsign": lambda x, a, b: x / (1 + np.abs(x)),
    "Softplus": lambda x, a, b: np.log1p(np.exp(x)),
}

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
DEFAULT_ACTS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"],
                "RNN": ["Tanh"]}


def recurrent(kind, x, w, r, b=None, seq_lens=None, h0=None, c0=None, p=None,
              direction="forward", acts=None, clip=None, input_forget=False,
              linear_before_reset=False, layout=0):
    """Returns (Y, Y_h, Y_c) (Y_c None except for LSTM) in f64.

    acts: list of (name, alpha, beta), K per direction, or None for the
    defaults."""
    x = np.asarray(x, np.float64)
    if layout == 1:
        x = x.transpose(1, 0, 2)
        h0 = None if h0 is None else np.asarray(h0).transpose(1, 0, 2)
        c0 = None if c0 is None else np.asarray(c0).transpose(1, 0, 2)
    seq, batch, _ = x.shape
    dirs = 2 if direction == "bidirectional" else 1
    hidden = r.shape[2]
    g = GATES[kind]
    k = len(DEFAULT_ACTS[kind])
    if acts is None:
        acts = [(n, 0.0, 0.0) for n in DEFAULT_ACTS[kind]] * dirs
    if b is None:
        b = np.zeros((dirs, 2 * g * hidden))
    if seq_lens is None:
        seq_lens = np.full(batch, seq)
    if h0 is None:
        h0 = np.zeros((dirs, batch, hidden))
    if c0 is None:
        c0 = np.zeros((dirs, batch, hidden))
    if p is None:
        p = np.zeros((dirs, 3 * hidden))

    def clipped(v):
        return v if clip is None else np.clip(v, -clip, clip)

    y = np.zeros((seq, dirs, batch, hidden))
    yh = np.zeros((dirs, batch, hidden))
    yc = np.zeros((dirs, batch, hidden))
    for d in range(dirs):
        reverse = direction == "reverse" or d == 1
        fns = [(lambda v, f=ACTIVATIONS[n], a=a, bb=bb: f(clipped(v), a, bb))
               for n, a, bb in acts[d * k:(d + 1) * k]]
        # h(Ct) in LSTM takes the cell state unclipped.
        h_of_c = (lambda v, n=acts[d * k + 2 if kind == "LSTM" else 0]:
                  ACTIVATIONS[n[0]](v, n[1], n[2]))
        W = np.split(np.asarray(w[d], np.float64), g)
        R = np.split(np.asarray(r[d], np.float64), g)
        Wb = np.split(np.asarray(b[d][:g * hidden], np.float64), g)
        Rb = np.split(np.asarray(b[d][g * hidden:], np.float64), g)
        P = np.split(np.asarray(p[d], np.float64), 3)
        for n in range(batch):
            steps = list(range(int(seq_lens[n])))
            if reverse:
                steps.reverse()
            h = np.asarray(h0[d, n], np.float64)
            c = np.asarray(c0[d, n], np.float64)
            for t in steps:
                xt = x[t, n]
                if kind == "RNN":
                    h = fns[0](xt @ W[0].T + h @ R[0].T + Wb[0] + Rb[0])
                elif kind == "GRU":
                    f, gg = fns
                    z = f(xt @ W[0].T + h @ R[0].T + Wb[0] + Rb[0])
                    rr = f(xt @ W[1].T + h @ R[1].T + Wb[1] + Rb[1])
                    if linear_before_reset:
                        hh = gg(xt @ W[2].T + rr * (h @ R[2].T + Rb[2]) + Wb[2])
                    else:
                        hh = gg(xt @ W[2].T + (rr * h) @ R[2].T + Rb[2] + Wb[2])
                    h = (1 - z) * hh + z * h
                else:
                    f, gg, _ = fns
                    i = f(xt @ W[0].T + h @ R[0].T + P[0] * c + Wb[0] + Rb[0])
                    if input_forget:
                        fg = 1 - i
                    else:
                        fg = f(xt @ W[2].T + h @ R[2].T + P[2] * c + Wb[2] + Rb[2])
                    cc = gg(xt @ W[3].T + h @ R[3].T + Wb[3] + Rb[3])
                    c = fg * c + i * cc
                    o = f(xt @ W[1].T + h @ R[1].T + P[1] * c + Wb[1] + Rb[1])
                    h = o * h_of_c(c)
                y[t, d, n] = h
            if steps:  # an empty sequence leaves zero final states
                yh[d, n] = h
                yc[d, n] = c
    if layout == 1:
        y = y.transpose(2, 0, 1, 3)
        yh = yh.transpose(1, 0, 2)
        yc = yc.transpose(1, 0, 2)
    return y, yh, (yc if kind == "LSTM" else None)
