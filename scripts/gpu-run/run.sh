#!/usr/bin/env bash
# The whole loop on a GPU machine that has Python 3 (numpy, PyYAML; PyTorch for cuda) but no Node
# and no network, in one call, from what scripts/gpu-run/pack.sh put in .gpucarry/:
# unpacks Node, the Temporal CLI and the project into $GPURUN_DIR (/tmp/gpurun), starts the
# project's dev server, an orchestrator (from the workflow bundle built beforehand), ONE GPU lane
# (`worker gpu --config loop.yaml --device 0`, 6 slots, min_free_gib 30), the package worker, and a
# python-gate loop of five candidates computing on $COMPUTE with different GPU needs (ballast 4 to
# 45 GiB); samples nvidia-smi every second; SIGTERMs the lane mid-training (a preemption) and starts
# it again; on cuda, a process outside the loop takes 80 GiB for 60 s; then stops the loop, exports
# its ledger, status and report, checks the ledger (check.ts) and writes ONE archive,
# $OUT/gpu-run.tar.xz (the run/ folder: logs, ledger, smi.csv, the loop's state and step logs),
# and $OUT/summary.txt. Every step is time-boxed: the call ends within MAX_S (540 s).
# Usage, from the repository root: OUT=dir [COMPUTE=cuda|cpu] [RUN_S=300] [KILL_AT=110]
#   [HOG_AT=190] [HOG_GIB=80] [HOG_S=60] bash scripts/gpu-run/run.sh
# COMPUTE=cpu is the dry run for a machine without a GPU: the stack computes on numpy, no outside
# process; without nvidia-smi the lane admits by slots alone. Exit 0: archive written and the
# ledger passes the project's ledger rules; 1: not; 2: it could not start (says why). STRICT=1
# refuses a carry packed before the working tree's TypeScript changed (else it runs as packed).
set -u
R=$(pwd)
OUT=${OUT:?OUT must name the folder whose files come back}
COMPUTE=${COMPUTE:-cuda}
RUN_S=${RUN_S:-300}
KILL_AT=${KILL_AT:-110}
HOG_AT=${HOG_AT:-190}
HOG_GIB=${HOG_GIB:-80}
HOG_S=${HOG_S:-60}
MAX_S=${MAX_S:-540}
PORT=${PORT:-7400}
UI_PORT=${UI_PORT:-8400}
G=${GPURUN_DIR:-/tmp/gpurun}
t0=$(date +%s)
mkdir -p "$OUT"
case "$COMPUTE" in cuda | cpu) ;; *) echo "COMPUTE must be cuda or cpu, got $COMPUTE"; exit 2 ;; esac
[ -s "$R/.gpucarry/project.tar.xz" ] || { echo "no carry: run scripts/gpu-run/pack.sh, and carry .gpucarry"; exit 2; }

# Our own folder only: a run before this one (same box, a second call) is cleared first.
[ -f "$G/.gpurun" ] && rm -rf "$G"
[ -e "$G" ] && { echo "$G exists and is not a gpu-run folder; set GPURUN_DIR"; exit 2; }
mkdir -p "$G/bin" "$G/project" "$G/run/logs" "$G/run/loop" "$G/xdg" && touch "$G/.gpurun" && chmod 700 "$G/xdg"
W=$G/run
P=$G/project
LOG=$W/logs/run.log
say() { echo "[gpu-run +$(($(date +%s) - t0))s] $*" | tee -a "$LOG"; }
# Seconds a step may take: what it wants, or what is left before MAX_S less the teardown's share.
box() {
  local left=$((t0 + MAX_S - ${2:-60} - $(date +%s)))
  [ "$left" -lt 5 ] && left=5
  echo $(($1 < left ? $1 : left))
}

# Unpack: Node, the Temporal CLI, the working tree with the compiled project and its modules beside it.
xz -dc "$R/.gpucarry/node.xz" > "$G/bin/node" &
xz -dc "$R/.gpucarry/temporal.xz" > "$G/bin/temporal" &
tar -C "$R" --exclude=./.gpucarry --exclude=./node_modules --exclude=./.git --exclude=./.tools \
  --exclude=./.temporal -cf - . | tar -C "$P" -xf -
xz -dc "$R/.gpucarry/project.tar.xz" | tar -C "$P" -xf -
wait
chmod +x "$G/bin/node" "$G/bin/temporal"
cp "$R/.gpucarry/MANIFEST" "$W/logs/carry-MANIFEST.txt" 2>/dev/null
export PATH="$G/bin:$PATH" LANG=C.UTF-8 XDG_RUNTIME_DIR=$G/xdg TEMPORAL_CLI=$G/bin/temporal \
  TEMPORAL_ADDRESS=127.0.0.1:$PORT TEMPORAL_NAMESPACE=champion-loop
unset CHAMPION_LOOP_WORKER_VERSIONING NODE_OPTIONS
say "unpacked in $(($(date +%s) - t0))s: node $(node --version), $(temporal --version | head -1); compute $COMPUTE"

fail() {
  say "STOPPED: $*"
  echo "gpu-run stopped: $*" > "$OUT/summary.txt"
  tar -C "$G" -cJf "$OUT/gpu-run.tar.xz" run 2>/dev/null
  exit 2
}
# The carry's JavaScript was compiled from the TypeScript as it was when pack.sh ran: what runs is
# that code (consistent in itself), said when the working tree beside it has changed since;
# STRICT=1 refuses to run it then.
stale=$(cd "$R" && sha256sum --quiet -c "$P/.gpu-run-sources.sha256" 2> /dev/null | sed 's/: FAILED.*//' | tr '\n' ' ')
if [ -n "$stale" ]; then
  [ "${STRICT:-0}" = 1 ] && fail "the carry is older than the working tree (run pack.sh again): $stale"
  say "STALE: the carry was packed before these sources changed; it runs the code as packed: $stale"
  echo "$stale" > "$W/logs/stale-sources.txt"
fi
{
  echo "== uname"; uname -a; echo "== nproc $(nproc)"; free -g 2>/dev/null
  echo "== python"; command -v python3; python3 --version
  python3 -c "import numpy, yaml; print('numpy', numpy.__version__, 'yaml', yaml.__version__)"
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" 2>&1
  echo "== nvidia-smi"; nvidia-smi -L 2>&1; nvidia-smi 2>&1
} > "$W/logs/box.txt" 2>&1
python3 -c "import numpy, yaml" 2>/dev/null || fail "python3 lacks numpy or PyYAML (logs/box.txt)"
if [ "$COMPUTE" = cuda ]; then
  command -v nvidia-smi > /dev/null || fail "COMPUTE=cuda needs nvidia-smi (COMPUTE=cpu is the dry run)"
  python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null || fail "torch sees no CUDA device"
fi

CL="node $P/src/client/main.js"
cd "$P" || fail "no $P"
timeout "$(box 90)" node scripts/dev-server.js start --port "$PORT" --ui-port "$UI_PORT" > "$W/logs/dev-server.log" 2>&1 \
  || fail "the dev server did not start: $(tail -5 "$W/logs/dev-server.log")"
say "dev server: $(grep -m1 -i "started\|answers" "$W/logs/dev-server.log")"

# The loop: python-gate's stack, candidates with different ballasts (a stand-in for models of
# different sizes), one lane of 6 slots, G = 30 GiB for a candidate not learned yet.
PG=$P/examples/python-gate
cat > "$W/loop/candidates.yaml" << EOF
candidates:
  - {name: base,   base_config: $PG/configs/base.yaml, overrides: {device: $COMPUTE, gpu_ballast_gib: 30, epoch_sleep_s: 4}}
  - {name: narrow, base_config: $PG/configs/base.yaml, overrides: {device: $COMPUTE, gpu_ballast_gib: 10, epoch_sleep_s: 4, features: 3}}
  - {name: strict, base_config: $PG/configs/base.yaml, overrides: {device: $COMPUTE, gpu_ballast_gib: 45, epoch_sleep_s: 4, class_weight_fail: 3.0, l2: 0.001}}
  - {name: tiny,   base_config: $PG/configs/base.yaml, overrides: {device: $COMPUTE, gpu_ballast_gib: 4,  epoch_sleep_s: 4, features: 5}}
  - name: student
    base_config: $PG/configs/base.yaml
    overrides:
      device: $COMPUTE
      gpu_ballast_gib: 20
      epoch_sleep_s: 4
      gate_soft_targets: "$W/loop/teachers/gen-{generation}/insample.jsonl"
      soft_target_weight: 0.5
EOF
cat > "$W/loop/loop.yaml" << EOF
workdir: $PG
state_dir: $W/loop/state
runs_root: $W/loop/runs
data_root: $PG/data
candidates: $W/loop/candidates.yaml
parallel: 6
saturation_evals: 16
max_reserve_checks: 1
teacher_after_round: 1
teacher_path: "$W/loop/teachers/gen-{generation}/insample.jsonl"
band_decisions: true
min_free_gib: 30
no_checkpoint_marker: no eligible checkpoint
resume_flag: --resume-from
lanes:
  - {host: gpubox, device: 0, slots: 6}
commands:
  train: [python3, -m, pygate.train]
  evaluate: [python3, -m, pygate.evaluate]
  evaluate_ensemble: [python3, -m, pygate.ensemble_evaluate]
  split_generate: [python3, -m, pygate.split_generate]
  split_carve: [python3, -m, pygate.split_carve]
  teacher_scores: [python3, -m, pygate.teacher_scores]
  package: [python3, -m, pygate.package]
timeouts: {train: 10m, no_progress: 3m, evaluate: 10m, split: 5m, package: 5m, heartbeat: 1m, schedule_to_start: 3m}
EOF

# nvidia-smi every second: `<unix time>,gpu,<total>,<used>,<free>` (MiB) and `<unix time>,app,<pid>,<MiB>`.
SMI=
if command -v nvidia-smi > /dev/null; then
  (while :; do
    ts=$(date +%s.%N)
    timeout 5 nvidia-smi --query-gpu=memory.total,memory.used,memory.free --format=csv,noheader,nounits -i 0 2> /dev/null | sed "s/^/$ts,gpu,/"
    timeout 5 nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits -i 0 2> /dev/null | sed "s/^/$ts,app,/"
    sleep 1
  done) > "$W/logs/smi.csv" 2>&1 &
  SMI=$!
else
  echo "no nvidia-smi on this machine: no samples" > "$W/logs/smi.csv"
fi

lane_start() {
  setsid $CL worker gpu --config "$W/loop/loop.yaml" --host gpubox --device 0 >> "$W/logs/lane.log" 2>&1 < /dev/null &
  LANE=$!
}
setsid $CL worker orchestrator --workflow-bundle "$P/workflow-bundle.js" > "$W/logs/orchestrator.log" 2>&1 < /dev/null &
ORCH=$!
setsid $CL worker package > "$W/logs/package.log" 2>&1 < /dev/null &
PKG=$!
lane_start
say "workers: orchestrator $ORCH, package $PKG, lane $LANE"
sleep 8
timeout "$(box 60)" $CL start gpu-loop --config "$W/loop/loop.yaml" > "$W/logs/start.log" 2>&1
say "start: $(tail -3 "$W/logs/start.log" | tr '\n' ' ')"

# The loop runs RUN_S seconds from the start of the call, or less if MAX_S needs the time to wind down.
end=$((t0 + RUN_S))
[ "$end" -gt $((t0 + MAX_S - 170)) ] && end=$((t0 + MAX_S - 170))
killed=0
hogged=0
HOG=
trainers() { pgrep -f "pygate.train.*$W" | wc -l; }
while [ "$(date +%s)" -lt "$end" ]; do
  sleep 10
  el=$(($(date +%s) - t0))
  timeout 20 $CL status gpu-loop > "$W/logs/status-$el.txt" 2>&1
  n=$(trainers)
  say "status: $(grep -iE "generation|champion:|lane" "$W/logs/status-$el.txt" | head -3 | cut -c1-120 | tr '\n' '|') trainers=$n"
  # A preemption: SIGTERM to the lane while it trains, then the lane started again.
  if [ "$killed" = 0 ] && [ "$el" -ge "$KILL_AT" ] && [ "$n" -gt 0 ]; then
    say "PREEMPT: SIGTERM lane $LANE with $n trainer processes running"
    ps -eo pid,pgid,etime,cmd | grep -E "pygate" | grep -F "$W" | grep -v grep > "$W/logs/preempt-ps.txt"
    kill -TERM "$LANE"
    for i in $(seq 1 40); do kill -0 "$LANE" 2> /dev/null || break; sleep 1; done
    kill -0 "$LANE" 2> /dev/null && kill -KILL "$LANE"
    say "lane exited after ${i}s; starting it again"
    lane_start
    killed=1
  fi
  # Someone else's process takes HOG_GIB of the card for HOG_S seconds.
  if [ "$COMPUTE" = cuda ] && [ "$hogged" = 0 ] && [ "$el" -ge "$HOG_AT" ]; then
    setsid timeout $((HOG_S + 30)) python3 -c "import torch, time; x = torch.ones(int($HOG_GIB * 2**30 / 4), device='cuda'); print('hog holds', torch.cuda.memory_allocated() / 2**30, 'GiB', flush=True); time.sleep($HOG_S)" > "$W/logs/hog.log" 2>&1 < /dev/null &
    HOG=$!
    say "HOG: a process outside the loop takes $HOG_GIB GiB for $HOG_S s (pid $HOG)"
    sleep 3
    timeout 10 nvidia-smi > "$W/logs/nvidia-smi-hog.txt" 2>&1
    hogged=1
  fi
done

# Wind down: what the loop says, stop it, export its ledger and report, stop every process started here.
command -v nvidia-smi > /dev/null && timeout 10 nvidia-smi > "$W/logs/nvidia-smi-end.txt" 2>&1
timeout "$(box 20 45)" $CL status gpu-loop > "$W/logs/status-final.txt" 2>&1
timeout "$(box 20 45)" $CL status gpu-loop --json > "$W/logs/status-final.json" 2> /dev/null
timeout "$(box 30 45)" $CL stop gpu-loop > "$W/logs/stop.log" 2>&1
sleep 5
timeout "$(box 45 45)" $CL ledger gpu-loop --out "$W/ledger" > "$W/logs/ledger.log" 2>&1
timeout "$(box 45 45)" $CL report gpu-loop --out "$W/report.html" > "$W/logs/report.log" 2>&1
say "ledger: $(wc -l < "$W/ledger/ledger.jsonl" 2> /dev/null || echo no) rows"
for p in $LANE $PKG $ORCH $HOG; do kill -TERM "$p" 2> /dev/null; done
for i in $(seq 1 15); do
  alive=
  for p in $LANE $PKG $ORCH; do kill -0 "$p" 2> /dev/null && alive="$alive $p"; done
  [ -z "$alive" ] && break
  sleep 1
done
for p in $alive $HOG; do kill -KILL "$p" 2> /dev/null; done
[ -n "$SMI" ] && kill "$SMI" 2> /dev/null
timeout 20 node scripts/dev-server.js stop --port "$PORT" >> "$W/logs/dev-server.log" 2>&1 \
  || timeout 20 node scripts/dev-server.js stop >> "$W/logs/dev-server.log" 2>&1
for p in $(pgrep -f "^$G/bin/temporal "); do kill -TERM "$p" 2> /dev/null; done
cp -r "$P/.temporal" "$W/logs/dev-server-files" 2> /dev/null
rm -f "$W"/logs/dev-server-files/*.sqlite*

# The checks: the ledger against the project's rules and issue 43's expectations.
timeout 60 node "$P/scripts/gpu-run/check.js" "$W" "$COMPUTE" > "$W/check.txt" 2>&1
check_rc=$?
python3 - "$W" > "$W/summary.txt" 2>&1 << 'PY'
import collections, json, os, sys
w = sys.argv[1]
path = f"{w}/ledger/ledger.jsonl"
rows = [json.loads(line) for line in open(path)] if os.path.exists(path) else []
print("rows by type:", dict(collections.Counter(r.get("type", "?") for r in rows)))
for r in rows:
    if r.get("type") == "run" and r.get("status") != "ensemble":
        extra = {k: r[k] for k in ("gpu_peak_mib", "lost_lanes", "oom_retries", "first_started") if k in r}
        print("run", r.get("run_id"), r.get("status"), r.get("epochs_run"), extra or "")
for r in rows:
    if r.get("type") in ("teacher", "reserve_check"):
        print(r["type"], "g%s" % r.get("generation"), r.get("status"), r.get("verdict", ""), r.get("error", ""))
apps = collections.defaultdict(set)
used = {}
for line in open(f"{w}/logs/smi.csv"):
    f = [x.strip() for x in line.split(",")]
    if len(f) >= 4 and f[1] == "app":
        apps[f[0]].add(f[2])
    if len(f) >= 5 and f[1] == "gpu":
        try:
            used[f[0]] = float(f[3])
        except ValueError:
            pass
print("nvidia-smi samples", len(used), "max MiB used", max(used.values(), default=0),
      "max processes at once", max((len(v) for v in apps.values()), default=0))
PY
{
  [ -n "$stale" ] && echo "STALE CARRY: ran the code as packed; changed since: $stale"
  echo "gpu-run: compute $COMPUTE, run ${RUN_S}s, preempt at ${KILL_AT}s ($([ "$killed" = 1 ] && echo done || echo NOT done))," \
    "outside process at ${HOG_AT}s ($([ "$hogged" = 1 ] && echo done || echo none)), $(($(date +%s) - t0))s in all"
  cat "$W/check.txt"
  echo
  cat "$W/summary.txt"
} > "$OUT/summary.txt"
say "check: $(head -2 "$W/check.txt" | tr '\n' ' ')"

# One archive, under 16 MiB: the whole run/ folder, else without the runs' checkpoints and scores.
say "archiving"
XZ_OPT="-6 -T0" tar -C "$G" -cJf "$OUT/gpu-run.tar.xz" run
if [ "$(stat -c %s "$OUT/gpu-run.tar.xz")" -gt $((15 * 1024 * 1024)) ]; then
  XZ_OPT="-6 -T0" tar -C "$G" --exclude=run/loop/runs -cJf "$OUT/gpu-run.tar.xz" run
  echo "(archive without run/loop/runs: over 15 MiB with it)" >> "$OUT/summary.txt"
fi
say "done in $(($(date +%s) - t0))s: $OUT/gpu-run.tar.xz $(stat -c %s "$OUT/gpu-run.tar.xz") bytes; check rc $check_rc"
cp "$LOG" "$OUT/run.log" 2> /dev/null
[ "$check_rc" = 0 ] && exit 0 || exit 1
