"""Captures the JAX traces in this directory (see README.md).

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python capture_jax.py matmul OUT
    XLA_FLAGS=--xla_force_host_platform_device_count=8 python capture_jax.py transformer OUT

Each run profiles three steps of one jitted program on eight CPU devices and
writes OUT/<name>.json.gz (the perfetto_trace.json.gz that jax.profiler.trace
wrote, as it is) and OUT/<name>.hlo.txt (the compiled program's HLO text, whose
instruction names are the trace's hlo_op names).
"""
import glob
import os
import shutil
import sys
import tempfile

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))


def matmul():
    """tanh(a @ b) @ b, a (512 x 512, f32) split by rows over the devices."""
    a = jax.device_put(jnp.ones((512, 512), jnp.float32), NamedSharding(mesh, P("x", None)))
    b = jax.device_put(jnp.ones((512, 512), jnp.float32), NamedSharding(mesh, P(None, None)))

    @jax.jit
    def step(a, b):
        return jnp.tanh(a @ b) @ b

    return step, (a, b)


def transformer():
    """One SGD step of a two-layer transformer (d_model 256, 4 heads of 64,
    d_ff 1024, 64 tokens, batch 16 split over the devices, f32): forward,
    backward, and the gradients' all-reduce."""
    layers, d, heads, ff, seq, batch, vocab = 2, 256, 4, 1024, 64, 16, 512
    keys = iter(jax.random.split(jax.random.key(0), 16))

    def init(shape):
        return jax.random.normal(next(keys), shape, jnp.float32) / jnp.sqrt(shape[0])

    params = {
        "embed": init((vocab, d)),
        "layers": [
            {"wqkv": init((d, 3 * d)), "wo": init((d, d)), "w1": init((d, ff)), "w2": init((ff, d))}
            for _ in range(layers)
        ],
    }
    replicated = NamedSharding(mesh, P())
    params = jax.device_put(params, replicated)
    tokens = jax.device_put(
        jax.random.randint(next(keys), (batch, seq), 0, vocab), NamedSharding(mesh, P("x", None))
    )

    def norm(x):
        return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)

    def loss(params, tokens):
        x = jax.nn.one_hot(tokens, vocab) @ params["embed"]
        mask = jnp.tril(jnp.ones((seq, seq), bool))
        for p in params["layers"]:
            q, k, v = jnp.split(norm(x) @ p["wqkv"], 3, axis=-1)
            q, k, v = (t.reshape(batch, seq, heads, d // heads) for t in (q, k, v))
            s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(d // heads)
            s = jax.nn.softmax(jnp.where(mask, s, -1e9), axis=-1)
            x = x + jnp.einsum("bhqk,bkhd->bqhd", s, v).reshape(batch, seq, d) @ p["wo"]
            x = x + jax.nn.gelu(norm(x) @ p["w1"]) @ p["w2"]
        logits = norm(x) @ params["embed"].T
        return -jnp.mean(jax.nn.log_softmax(logits)[..., :-1, :].max(-1))

    @jax.jit
    def step(params, tokens):
        g = jax.grad(loss)(params, tokens)
        return jax.tree.map(lambda w, dw: w - 1e-3 * dw, params, g)

    return step, (params, tokens)


def main(name, out):
    step, args = {"matmul": matmul, "transformer": transformer}[name]()
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{name}.hlo.txt"), "w") as f:
        f.write(step.lower(*args).compile().as_text())
    jax.block_until_ready(step(*args))
    tmp = tempfile.mkdtemp()
    with jax.profiler.trace(tmp, create_perfetto_trace=True):
        for i in range(3):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                jax.block_until_ready(step(*args))
    (trace,) = glob.glob(os.path.join(tmp, "plugins/profile/*/perfetto_trace.json.gz"))
    shutil.copy(trace, os.path.join(out, f"{name}.json.gz"))
    print(jax.__version__)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
