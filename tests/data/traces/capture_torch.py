"""Captures pytorch-mlp-cpu.json.gz (see README.md): three profiled training
steps (after one of warm-up) of a tiny MLP on the CPU, with FLOP counts (with_flops=True).

    python capture_torch.py OUT
"""
import gzip
import os
import shutil
import sys

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 256))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(64, 256)


def step():
    opt.zero_grad()
    loss = model(x).square().mean()
    loss.backward()
    opt.step()


step()
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
path = os.path.join(out, "pytorch-mlp-cpu.json")
with torch.profiler.profile(
    activities=[torch.profiler.ProfilerActivity.CPU],
    schedule=torch.profiler.schedule(wait=0, warmup=1, active=3),
    on_trace_ready=lambda p: p.export_chrome_trace(path),
    record_shapes=True,
    with_flops=True,
) as prof:
    for _ in range(4):
        step()
        prof.step()
with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
    shutil.copyfileobj(f, g)
os.remove(path)
print(torch.__version__)
