"""Runs every JAX program the code widget writes and compares XLA with the planner.

Reads the corpus (JSON lines from `cargo run -p ridgeline-core --example jax_corpus`),
and for each program, under 8 CPU devices:

1. runs it: the program makes its inputs, runs the sharded matmul and asserts
   that the result has the plan's output sharding and equals the unsharded
   product (np.allclose with a tolerance suited to the dtype); then the block of
   A, B and C each device holds is compared with the planner's;
2. compiles its `matmul` with `.lower(...).compile().as_text()` and reads the
   collectives in the optimized HLO (all-gather, reduce-scatter, all-reduce,
   all-to-all, collective-permute), mapping their replica groups back to mesh axes;
3. compares them with the planner's collectives and classifies the difference.

Writes the agreement table (markdown) and fails when any program fails, or when
the table differs from the committed one (`--write` regenerates it).

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python tests/jax/check.py corpus.jsonl tests/jax/agreement.md
"""

import collections
import contextlib
import difflib
import io
import json
import os
import re
import sys
import time

if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()

import jax  # noqa: E402
import numpy as np  # noqa: E402

KINDS = ("all-gather", "reduce-scatter", "all-reduce", "all-to-all", "collective-permute")
INSTR = re.compile(
    r"=\s*\S.*?\s(all-gather|reduce-scatter|all-reduce|all-to-all|collective-permute)(-start)?\("
)

# The classes of the comparison, in the order they are tried, with what each means.
CLASSES = {
    "agree": "XLA runs exactly the planner's collectives over the same mesh axes.",
    "agree, regrouped": "the same collectives over the same axes in different "
    "instructions. A planner step over axes of two dimensions (an AllGather of C[I_X, K_Y] "
    "over XY) is one JAX collective per dimension; or XLA splits a collective over two "
    "axes of one dimension into one per axis, or merges two.",
    "CPU: ReduceScatter as AllReduce + slice": "where the planner reduce-scatters, XLA's "
    "SPMD partitioner writes an AllReduce followed by a dynamic-slice (each device keeps "
    "its part). XLA's GPU pipeline runs a pass (ReduceScatterCreator) that fuses such a "
    "pair into one reduce-scatter; the CPU pipeline compiled here does not, so the pair "
    "stays and, as written, sends twice the planner's elements. An explicit "
    "`psum_scatter` (manual mode) compiles to a reduce-scatter on CPU too.",
    "permute as permutes and AllToAlls": "the planner moves only the blocks that must "
    "move (one collective permute, priced per piece); XLA reshards with the collective "
    "permutes and AllToAlls listed.",
    "permute as gathers": "the planner moves only the blocks that must move; XLA's "
    "partitioner finds no direct path between the two shardings and gathers (part of) "
    "the array, then slices: more traffic than the planner's permute (XLA logs an "
    "'involuntary full rematerialization' warning for the worst of these).",
    "XLA chose another plan, sending less": "automatic mode leaves the choice to the "
    "compiler, and XLA's partitioner picks a different valid sequence that sends fewer "
    "elements per device than the planner's, by the planner's own ring model (the table "
    "above says how). The planner follows Part 3's rule for each case (in case 2, "
    "AllGather the sharded input first); XLA also weighs an AllToAll of that input onto "
    "the dimension the output is sharded on, and the book's strategy 2 (slice the other "
    "input, reduce the partial sums after), which send less when the output or the "
    "moved block is small.",
    "XLA chose another plan, sending more": "as above, but XLA's sequence sends more "
    "elements per device than the planner's: the partitioner does not minimise traffic "
    "(it gathers an input, or a whole array, where the planner moves only the output's "
    "blocks with an AllToAll or a permute).",
    "XLA chose another plan, sending as much": "a different sequence with the same "
    "elements per device (an AllGather of the input against strategy 2's AllReduce of "
    "an output of half its size).",
    "disagree": "the manual program writes the planner's collectives and XLA compiled "
    "something else: a generator or planner bug (the check fails).",
}


def mesh_coords(mesh):
    """Device id (as in the HLO's replica groups) -> coordinates on the mesh."""
    shape = mesh.devices.shape
    return {i: np.unravel_index(i, shape) for i in range(mesh.devices.size)}


def parse_groups(line, n):
    """The replica groups of a collective, as lists of device ids."""
    m = re.search(r"replica_groups=\{(\{[\d,]*\}(?:,\{[\d,]*\})*)\}", line)
    if m:
        return [[int(x) for x in g.split(",") if x] for g in re.findall(r"\{([\d,]*)\}", m.group(1))]
    m = re.search(r"replica_groups=\[([\d,]+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?", line)
    if m:
        out_shape = [int(x) for x in m.group(1).split(",")]
        ids = np.arange(int(np.prod([int(x) for x in m.group(2).split(",")]))).reshape(
            [int(x) for x in m.group(2).split(",")]
        )
        if m.group(3):
            ids = ids.transpose([int(x) for x in m.group(3).split(",")])
        return ids.reshape(out_shape).tolist()
    m = re.search(r"replica_groups=mesh\[([^\]]*)\](?:, device_ids=\(\[[\d,]+\](?:T\([\d,]+\))?\))?\s*\{([^}]*)\}", line)
    if m:
        axes = re.findall(r"'([^']+)'=(\d+)", m.group(1))
        names = [a for a, _ in axes]
        sizes = [int(s) for _, s in axes]
        chosen = re.findall(r"'([^']+)'", m.group(2))
        if any(":" in c or c not in names for c in chosen):
            raise ValueError(f"sub-axes in replica groups are not handled: {line[:300]}")
        ids = np.arange(int(np.prod(sizes)))
        perm = re.search(r"device_ids=\(\[([\d,]+)\](?:T\(([\d,]+)\))?\)", line)
        if perm:  # the devices at the XLA mesh's positions: an iota, maybe transposed
            iota = ids.reshape([int(x) for x in perm.group(1).split(",")])
            if perm.group(2):
                iota = iota.transpose([int(x) for x in perm.group(2).split(",")])
            ids = iota.reshape(-1)
        elif re.search(r"[^_]device_ids=", line):
            raise ValueError(f"unrecognized device ids: {line[:300]}")
        ids = ids.reshape(sizes)
        keep = [i for i, a in enumerate(names) if a not in chosen]
        grouped = [i for i, a in enumerate(names) if a in chosen]
        ids = ids.transpose(keep + grouped)
        return ids.reshape(-1, int(np.prod([sizes[i] for i in grouped]) if grouped else 1)).tolist()
    if "replica_groups={}" in line:
        return [list(range(n))]
    raise ValueError(f"unrecognized replica groups: {line[:300]}")


def axes_of_groups(groups, coords, names):
    varying = set()
    for g in groups:
        for d in range(len(names)):
            if len({int(coords[i][d]) for i in g}) > 1:
                varying.add(names[d])
    return varying


def elements(type_text):
    """Elements of an HLO result type: `f32[64,32]{1,0}`, or a tuple's sum."""
    return sum(int(np.prod([int(d) for d in dims.split(",") if d])) for dims in re.findall(r"\w+\[([\d,]*)\]", type_text))


def collectives(hlo, mesh):
    """The collectives of compiled HLO text, in order: (kind, sorted mesh axes,
    elements each device sends), the last under the planner's model (a ring:
    (n-1)/n of the gathered, reduced or exchanged array, twice for an AllReduce;
    a permute sends what it receives)."""
    coords = mesh_coords(mesh)
    names = list(mesh.axis_names)
    out = []
    for line in hlo.splitlines():
        m = INSTR.search(line)
        if not m:
            continue
        kind = m.group(1)
        if m.group(2):
            raise ValueError(f"asynchronous collectives are not handled: {line[:300]}")
        size = elements(line[line.index("=") + 1 : m.start(1)])
        if kind == "collective-permute":
            pairs = re.search(r"source_target_pairs=\{(.*?)\}\}", line)
            varying = set()
            for s, t in re.findall(r"\{(\d+),(\d+)\}", (pairs.group(1) + "}") if pairs else ""):
                for d in range(len(names)):
                    if coords[int(s)][d] != coords[int(t)][d]:
                        varying.add(names[d])
            sent = size
        else:
            groups = parse_groups(line, len(coords))
            varying = axes_of_groups(groups, coords, names)
            n = max(len(g) for g in groups)
            full = size * n if kind == "reduce-scatter" else size
            sent = (2 if kind == "all-reduce" else 1) * full * (n - 1) / n
        if not varying:
            continue  # a collective within single devices moves nothing
        out.append((kind, tuple(sorted(varying)), sent))
    return out


def show(cs):
    if not cs:
        return "none"
    return ", ".join(f"{c[0]} {''.join(c[1])}" for c in cs)


def atoms(cs):
    return collections.Counter((k, a) for k, axes in cs for a in axes)


def classify(mode, predicted, xla_sent, hlo, planner_elements):
    xla = [(k, a) for k, a, _ in xla_sent]
    sent = sum(s for _, _, s in xla_sent)
    norm = lambda cs: collections.Counter(("collective-permute" if k == "permute" else k, a) for k, a in cs)
    if norm(predicted) == norm(xla):
        return "agree"
    p_atoms = atoms([("collective-permute" if k == "permute" else k, a) for k, a in predicted])
    if p_atoms == atoms(xla):
        return "agree, regrouped"
    as_ar = [("all-reduce" if k == "reduce-scatter" else k, a) for k, a in predicted]
    if "dynamic-slice" in hlo and any(k == "reduce-scatter" for k, _ in predicted):
        if norm(as_ar) == norm(xla) or atoms(as_ar) == atoms(xla):
            return "CPU: ReduceScatter as AllReduce + slice"
    if any(k == "permute" for k, _ in predicted):
        rest = [(k, a) for k, a in as_ar if k != "permute"]
        other = collections.Counter(xla) - norm(rest)
        if not (norm(rest) - collections.Counter(xla)) and other:
            if any(k == "all-gather" for k, _ in other):
                return "permute as gathers"
            return "permute as permutes and AllToAlls"
    if mode in ("automatic", "explicit"):
        if sent < 0.99 * planner_elements:
            return "XLA chose another plan, sending less"
        if sent > 1.01 * planner_elements:
            return "XLA chose another plan, sending more"
        return "XLA chose another plan, sending as much"
    return "disagree"


def check_blocks(entry, ns):
    """Each device's shards of a, b and c are the planner's blocks."""
    mesh = ns["mesh"]
    position = {d.id: i for i, d in enumerate(mesh.devices.flat)}
    for name in ("a", "b", "c"):
        for shard in ns[name].addressable_shards:
            got = [[s.start or 0, s.stop if s.stop is not None else n] for s, n in zip(shard.index, ns[name].shape)]
            want = entry["blocks"][position[shard.device.id]][name]
            if got != want:
                raise AssertionError(f"{name} on device {position[shard.device.id]} holds {got}, the planner says {want}")


def pattern(predicted, xla):
    """How XLA's own plan differs from the planner's, in one phrase."""
    reduced = lambda cs: {a for k, axes in cs if k in ("all-reduce", "reduce-scatter") for a in axes}
    a2a = lambda cs: sum(1 for k, _ in cs if k == "all-to-all")
    if reduced(xla) - reduced(predicted):
        return "slices an input and reduces after (Part 3's strategy 2)"
    if a2a(xla) > a2a(predicted):
        return "AllToAll where the planner gathers"
    if a2a(xla) < a2a(predicted):
        return "gathers where the planner uses an AllToAll"
    return "reshards with other collectives"


def run(entry):
    """Runs one program; returns (collectives, hlo text)."""
    ns = {"__name__": "__corpus__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(entry["program"], entry["id"], "exec"), ns)
    if "blocks" in entry:
        check_blocks(entry, ns)
    args = (ns["a"], ns["b"]) if "a" in ns else (ns["A"], ns["W"])
    hlo = ns["matmul"].lower(*args).compile().as_text()
    return collectives(hlo, ns["mesh"]), hlo


def table(rows, seconds_note=False):
    n = len(rows)
    by = collections.Counter((r["mode"], r["class"]) for r in rows)
    modes = ["automatic", "explicit", "manual"]
    lines = [
        "# Generated JAX programs: the planner against XLA",
        "",
        "Generated by `tests/jax/check.py` from the corpus of",
        "`cargo run -p ridgeline-core --example jax_corpus` under JAX "
        f"{jax.__version__} on 8 CPU devices; `scripts/test.sh` regenerates it and",
        "fails if it differs. Every program ran and its result equalled the unsharded",
        "matmul, and every device held the planner's blocks of A, B and C. The collectives are those of the",
        "compiled (optimized) HLO, their replica groups mapped back to mesh axes.",
        "The widget's presets run at its default sizes; Part 10's jit examples with F an",
        "eighth of the book's, and the collective matmul with B, D, F an eighth of the",
        "book's (the collectives are the same; CPUs multiply large bf16 arrays slowly).",
        "",
        f"{n} programs.",
        "",
        "| class | " + " | ".join(modes) + " | total |",
        "|---|" + "---|" * (len(modes) + 1),
    ]
    for c in CLASSES:
        counts = [by[(m, c)] for m in modes]
        if sum(counts):
            lines.append(f"| {c} | " + " | ".join(str(x) for x in counts) + f" | {sum(counts)} |")
    other = collections.Counter((r["how"], r["class"].split(", ")[-1]) for r in rows if r["how"])
    if other:
        lines += [
            "",
            "Where XLA chose another plan, how it differs (rows: what XLA does instead; "
            "columns: its elements sent against the planner's):",
            "",
            "| XLA instead | sending less | sending as much | sending more |",
            "|---|---|---|---|",
        ]
        for how in sorted({h for h, _ in other}):
            lines.append(
                f"| {how} | " + " | ".join(str(other[(how, f'sending {x}')]) for x in ("less", "as much", "more")) + " |"
            )
    lines += ["", "What the classes mean:", ""]
    for c, why in CLASSES.items():
        lines.append(f"- **{c}**: {why}")
    lines += [
        "",
        "Sent: elements each device sends, under the planner's ring model, for the planner's",
        "plan and for XLA's collectives (read from their shapes and groups).",
        "",
        "| id | mode | case | matmul | mesh | planner | XLA | sent: planner / XLA | class |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['id']} | {r['mode']} | {r['case']} | `{r['spec']}` | {r['mesh']} | "
            f"{show(r['predicted'])} | {show(r['xla'])} | "
            f"{r['planner_elements']:g} / {sum(x[2] for x in r['xla']):g} | "
            + (f"{r['class']}: {r['how']} |" if r["how"] else f"{r['class']} |")
        )
    return "\n".join(lines) + "\n"


def check_entries(entries):
    """Runs and classifies entries; returns (rows, failures, timings)."""
    rows, failures, timings = [], [], []
    for e in entries:
        predicted = [(p["kind"], tuple(sorted(p["axes"]))) for p in e["predicted"]]
        t0 = time.time()
        try:
            xla, hlo = run(e)
        except Exception as err:  # noqa: BLE001 - every failure is reported
            failures.append(f"{e['id']} ({e['mode']}): {type(err).__name__}: {str(err)[:600]}")
            continue
        jax.clear_caches()
        timings.append((time.time() - t0, e["id"], e["mode"]))
        cls = classify(e["mode"], predicted, xla, hlo, e["planner_elements"])
        if cls == "disagree":
            failures.append(f"{e['id']} ({e['mode']}): planner {show(predicted)}, XLA {show(xla)}")
        how = pattern(predicted, [(k, a) for k, a, _ in xla]) if cls.startswith("XLA chose") else ""
        rows.append(dict(e, predicted=predicted, xla=xla, how=how, **{"class": cls}))
    return rows, failures, timings


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    write = "--write" in sys.argv
    corpus, out = args[:2]
    entries = [json.loads(l) for l in open(corpus, encoding="utf-8") if l.strip()]
    # A worker (`--part=K/N`) checks every N-th entry from the K-th and prints
    # its results as JSON; the parent runs JAX_CHECK_JOBS workers (default:
    # one per CPU, at most 4) and merges their results in corpus order.
    part = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--part=")), None)
    if part:
        k, n = (int(x) for x in part.split("/"))
        json.dump(check_entries(entries[k::n]), sys.stdout)
        return
    start = time.time()
    jobs = int(os.environ.get("JAX_CHECK_JOBS", min(4, os.cpu_count() or 1)))
    if jobs <= 1:
        rows, failures, timings = check_entries(entries)
    else:
        import subprocess

        procs = [
            subprocess.Popen(
                [sys.executable, __file__, corpus, out, f"--part={k}/{jobs}"], stdout=subprocess.PIPE
            )
            for k in range(jobs)
        ]
        results = [json.loads(p.communicate()[0]) for p in procs]
        if any(p.returncode for p in procs):
            sys.exit("a worker failed")
        order = {(e["id"], e["mode"]): i for i, e in enumerate(entries)}
        rows = [
            dict(r, predicted=[(k, tuple(a)) for k, a in r["predicted"]], xla=[(k, tuple(a), s) for k, a, s in r["xla"]])
            for res in results
            for r in res[0]
        ]
        rows.sort(key=lambda r: order[(r["id"], r["mode"])])
        failures = [f for res in results for f in res[1]]
        timings = [tuple(t) for res in results for t in res[2]]
    print(f"{len(entries)} programs in {time.time() - start:.0f} s", file=sys.stderr)
    if os.environ.get("JAX_CHECK_TIMES"):
        for t, i, m in sorted(timings)[-12:]:
            print(f"{t:6.2f} s {i} {m}", file=sys.stderr)
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    text = table(rows)
    old = open(out, encoding="utf-8").read() if os.path.exists(out) else ""
    stale = text != old
    if write:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    elif stale:
        sys.stderr.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), out, "regenerated", n=1))
        print(f"{out} is stale: rerun with --write and commit it", file=sys.stderr)
    if failures or (stale and not write):
        sys.exit(1)


if __name__ == "__main__":
    main()
