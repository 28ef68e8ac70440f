import os
os.environ.setdefault("XLA_FLAGS","--xla_force_host_platform_device_count=8")
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((8,), ("x",))
a = jax.device_put(jnp.ones((512,512),jnp.float32), NamedSharding(mesh,P("x",None)))
b = jax.device_put(jnp.ones((512,512),jnp.float32), NamedSharding(mesh,P(None,None)))
@jax.jit
def step(a,b):
    return jnp.tanh(a@b) @ b
step(a,b).block_until_ready()
with jax.profiler.trace("/tmp/jt/out", create_perfetto_trace=True):
    for i in range(3):
        with jax.profiler.StepTraceAnnotation("train", step_num=i):
            step(a,b).block_until_ready()
print(jax.__version__)
