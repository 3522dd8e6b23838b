#!/usr/bin/env bash
# Whole-run benchmarks: times complete `stmech run` processes (start-up, loading, solving,
# diagnostics, every output file, plots) over a ladder of sizes for every problem type, and
# writes one markdown table with the total, solve and output wall times, the peak memory and
# the fitted growth exponent of each ladder (log-log least squares of the total time against
# the size).
#
#   bash benches/whole_run.sh                 # build the release binary, full ladders
#   QUICK=1 bash benches/whole_run.sh         # short ladders (a minute or two)
#   STMECH=/path/to/stmech bash benches/whole_run.sh   # time another binary (no build)
#   ONLY=rigid-1el,inverse-fem bash benches/whole_run.sh   # some ladders only
#   SIZES_rigid_1el="250 500 1000" bash benches/whole_run.sh  # another ladder (id, - → _)
#
# Environment: RUNS (timed runs per case, default 3; the median is reported), OUT (table,
# default bench-out/whole_run.md), WORK (scratch directory, default a fresh temp dir),
# NO_PLOTS=1 (pass --no-plots), NO_INSTALL=1 (do not try to install hyperfine), TIMEOUT
# (seconds per run, default 300: a case that takes longer is reported as "> TIMEOUT" and ends
# its ladder; such rows are left out of the fit).
#
# Every case runs RUNS times (after one warm-up run); each run is timed from outside (wall
# clock around the process), its peak memory (max RSS) taken from /usr/bin/time, and its solve
# and output times from its summary.json (`wall_time_seconds`, `output_wall_time_seconds`;
# the rest of the total is process start-up, loading and the summary itself). Every column is
# the median over the runs. HYPERFINE=1 times the total with `hyperfine` instead (installed
# with apt-get if missing, unless NO_INSTALL=1).
# Sizes: time elements (rigid body, pendulum), time steps (planar beam), space elements
# (planar beam, 200 steps: the `-space` ladders), space-time nodes (beam inverse; the ladder is
# 20 … 256 space elements with the time step from the wave speeds; the crane: 16 … 256 rope
# elements of examples/crane/01_swing_free_transfer.toml, time step from the slowest wave; the
# spatial inverse: 8 … 64 arm elements of examples/spatial_inverse/01_helix_twist.toml, the same),
# beam elements and time elements (flexible multibody: the 3D flying spaghetti of
# examples/flexible/02_flying_spaghetti_3d.toml, quadratic elements, p = 1, one-element blocks).
# The flexible ladders get a second table: the time per beam element per time step (solve wall
# time / (beam elements × time elements)) and the split of the solve into assembly,
# factorisation and triangular solves (summed over the blocks of summary.json), with the
# Newton iterations and factorisations.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${RUNS:-3}"
OUT="${OUT:-$here/bench-out/whole_run.md}"
WORK="${WORK:-$(mktemp -d -t stmech-bench-XXXXXX)}"
QUICK="${QUICK:-0}"
TIMEOUT="${TIMEOUT:-300}"
ONLY="${ONLY:-}"
plots_flag=()
[[ "${NO_PLOTS:-0}" == 1 ]] && plots_flag=(--no-plots)

if [[ -z "${STMECH:-}" ]]; then
    echo "building the release binary ..." >&2
    (cd "$here" && cargo build --release -q -p stmech-cli)
    STMECH="$here/target/release/stmech"
fi
[[ -x "$STMECH" ]] || { echo "error: $STMECH is not an executable" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time (GNU time) is needed for the peak memory; apt-get install time" >&2; exit 2; }

have_hyperfine=0
if [[ "${HYPERFINE:-0}" == 1 ]]; then
    if ! command -v hyperfine >/dev/null && [[ "${NO_INSTALL:-0}" != 1 ]] && command -v apt-get >/dev/null; then
        echo "installing hyperfine (apt-get) ..." >&2
        sudo_cmd=()
        [[ "$(id -u)" != 0 ]] && command -v sudo >/dev/null && sudo_cmd=(sudo -n)
        "${sudo_cmd[@]}" apt-get install -y -qq hyperfine >/dev/null 2>&1 ||
            echo "  (could not install hyperfine: using the timing loop)" >&2
    fi
    command -v hyperfine >/dev/null && have_hyperfine=1
fi

mkdir -p "$WORK" "$(dirname "$OUT")"
ex="$here/examples"
rows="$WORK/rows.tsv"
: >"$rows"

want() { [[ -z "$ONLY" || ",$ONLY," == *",$1,"* ]]; }

# ---- scenario generators: gen_<ladder> SIZE FILE; echo the size measure ----------------------
gen_rigid_1el() { # N one-element blocks, p = 1, h = 1 ms
    sed -e "s/^elements_per_block = .*/elements_per_block = 1/" -e "s/^blocks = .*/blocks = $1/" \
        -e "s/^end = [0-9].*/end = $(awk "BEGIN{print $1*1e-3}")/" "$ex/rigid_body/01_constant_torque.toml" >"$2"
    echo "$1"
}
gen_rigid_free() { # torque-free body (ω ≈ 1 rad/s), N one-element blocks, p = 1, h = 1 ms
    sed -e "s/^order = .*/order = 1/" -e "s/^elements_per_block = .*/elements_per_block = 1/" -e "s/^blocks = .*/blocks = $1/" \
        -e "s/^end = [0-9].*/end = $(awk "BEGIN{print $1*1e-3}")/" "$ex/rigid_body/03_torque_free_long.toml" >"$2"
    echo "$1"
}
gen_rigid_big() { # N elements in blocks of 1000, p = 1, h = 1 ms
    sed -e "s/^elements_per_block = .*/elements_per_block = 1000/" -e "s/^blocks = .*/blocks = $(($1 / 1000))/" \
        -e "s/^end = [0-9].*/end = $(awk "BEGIN{print $1*1e-3}")/" "$ex/rigid_body/01_constant_torque.toml" >"$2"
    echo "$1"
}
gen_pendulum() { # double pendulum, p = 2, blocks of 100 elements, h = 0.02 s
    sed -e "s/^elements_per_block = .*/elements_per_block = 100/" -e "s/^blocks = .*/blocks = $(($1 / 100))/" \
        -e "s/^end = [0-9].*/end = $(awk "BEGIN{print $1*0.02}")/" "$ex/multibody/01_double_pendulum.toml" >"$2"
    echo "$1"
}
gen_beam() { # flying beam, Δt = 0.025 s, N steps; $3 = method
    sed -e "s/^end = [0-9].*/end = $(awk "BEGIN{print $1*0.025}")/" \
        -e "s/^step = .*/step = 0.025\nmethod = \"$3\"/" "$ex/beam/03_flying_beam.toml" >"$2"
    echo "$1"
}
gen_beam_stepper() { gen_beam "$1" "$2" energy-momentum; }
gen_beam_slabs() { gen_beam "$1" "$2" space-time; }
gen_beam_space() { # flying beam with N quadratic elements, 200 steps of 0.025 s; $3 = method
    sed -e "s/^elements = .*/elements = $1/" -e "s/^end = [0-9].*/end = 5.0/" \
        -e "s/^step = .*/step = 0.025\nmethod = \"$3\"/" "$ex/beam/03_flying_beam.toml" >"$2"
    echo "$1"
}
gen_beam_stepper_space() { gen_beam_space "$1" "$2" energy-momentum; }
gen_beam_slabs_space() { gen_beam_space "$1" "$2" space-time; }
gen_inverse() { # [I] Example 3.2 with N space elements; $3 = method
    sed -e "s/^resolution = .*/resolution = $1/" "$ex/beam_inverse/example_3_2.toml" >"$2"
    printf 'method = "%s"\n' "$3" | cat - "$2" >"$2.tmp" && mv "$2.tmp" "$2"
    # size: space-time nodes (N + 1)(M + 1), M from `stmech check`
    local m
    m=$("$STMECH" check "$2" | sed -n 's/.*mesh [0-9]* × \([0-9]*\).*/\1/p')
    echo $((($1 + 1) * (m + 1)))
}
gen_inverse_fem() { gen_inverse "$1" "$2" space-time; }
gen_inverse_chars() { gen_inverse "$1" "$2" characteristics; }
gen_crane() { # the crane example (issue 17) with N rope elements, time step from the slowest wave
    sed -e "s/^resolution = .*/resolution = $1/" "$ex/crane/01_swing_free_transfer.toml" >"$2"
    local m
    m=$("$STMECH" check "$2" | sed -n 's/.*mesh [0-9]* × \([0-9]*\).*/\1/p')
    echo $((($1 + 1) * (m + 1)))
}
gen_crane_fem() { gen_crane "$1" "$2"; }
gen_crane_chars() { # the same meshes (the FEM's automatic time step), method of characteristics
    local size
    size=$(gen_crane "$1" "$2")
    sed -i 's/^problem = "crane"/problem = "crane"\nmethod = "characteristics"/' "$2"
    echo "$size"
}
gen_spatial() { # the helix manoeuvre (issue 16) with N arm elements, time step from the slowest
    # wave; $3 = method, $4 = closed loop (true/false)
    sed -e "s/^elements = 32 .*/elements = $1/" -e "s/^method = .*/method = \"$3\"/" \
        "$ex/spatial_inverse/01_helix_twist.toml" >"$2"
    printf '\n[inverse.verify]\nclosed_loop = %s\n' "$4" >>"$2"
    local m
    m=$("$STMECH" check "$2" | sed -n 's/.*mesh [0-9]* × \([0-9]*\).*/\1/p')
    echo $((($1 + 1) * (m + 1)))
}
gen_spatial_fem() { gen_spatial "$1" "$2" space-time false; }
gen_spatial_chars() { gen_spatial "$1" "$2" characteristics false; }
gen_spatial_fem_loop() { gen_spatial "$1" "$2" space-time true; }
gen_flex() { # flying spaghetti with $1 quadratic elements over 15 s in $3 one-element blocks (p = 1)
    sed -e "s/^elements = .*/elements = $1/" -e "s/^blocks = .*/blocks = $3/" \
        -e "s/^elements_per_block = .*/elements_per_block = 1/" "$ex/flexible/02_flying_spaghetti_3d.toml" >"$2"
}
gen_flex_elements() { gen_flex "$1" "$2" "${FLEX_STEPS:-1000}"; echo "$1"; } # fixed 1000 time elements
gen_flex_steps() { gen_flex "${FLEX_ELEMENTS:-16}" "$2" "$1"; echo "$1"; }  # fixed 16 beam elements

if [[ "$QUICK" == 1 ]]; then
    ladder_rigid="1000 3000 10000 30000"
    ladder_pend="500 1000 2000"
    ladder_beam="150 300 600 1200"
    ladder_beam_space="40 80 160 320"
    ladder_inv="20 32 64 128"
    ladder_flex_el="8 16 32"
    ladder_flex_steps="1000 2000 4000"
    ladder_crane="16 32 64"
    ladder_spatial="8 16 32"
else
    ladder_rigid="1000 3000 10000 30000 100000"
    ladder_pend="500 1000 2000 4000 8000"
    ladder_beam="150 300 600 1200 2400 4800"
    ladder_beam_space="40 80 160 320 640 1280"
    ladder_inv="20 32 64 128 256"
    ladder_flex_el="8 16 32 64 128"
    ladder_flex_steps="1000 2000 4000 10000"
    ladder_crane="16 32 64 128 256"
    ladder_spatial="8 16 32 64"
fi
ladders=(
    "rigid-1el|rigid body under constant torque, one-element blocks (p = 1)|time elements|gen_rigid_1el|$ladder_rigid"
    "rigid-free|torque-free rigid body, one-element blocks (p = 1)|time elements|gen_rigid_free|$ladder_rigid"
    "rigid-big|rigid body, blocks of 1000 elements (p = 1)|time elements|gen_rigid_big|$ladder_rigid"
    "pendulum|double pendulum (p = 2, blocks of 100)|time elements|gen_pendulum|$ladder_pend"
    "beam-stepper|planar beam, energy-momentum stepper|time steps|gen_beam_stepper|$ladder_beam"
    "beam-slabs|planar beam, space-time slabs|time steps|gen_beam_slabs|$ladder_beam"
    "beam-stepper-space|planar beam, energy-momentum stepper, 200 steps|space elements|gen_beam_stepper_space|$ladder_beam_space"
    "beam-slabs-space|planar beam, space-time slabs, 200 slabs|space elements|gen_beam_slabs_space|$ladder_beam_space"
    "inverse-fem|beam inverse Ex. 3.2, space-time FEM|space-time nodes|gen_inverse_fem|$ladder_inv"
    "inverse-chars|beam inverse Ex. 3.2, characteristics|space-time nodes|gen_inverse_chars|$ladder_inv"
    "crane-fem|crane example (issue 17), space-time FEM, closed-loop replay included|space-time nodes|gen_crane_fem|$ladder_crane"
    "crane-chars|crane example (issue 17), method of characteristics, closed-loop replay included|space-time nodes|gen_crane_chars|$ladder_crane"
    "spatial-fem|spatial inverse, helix manoeuvre (issue 16), space-time FEM, no closed loop|space-time nodes|gen_spatial_fem|$ladder_spatial"
    "spatial-chars|spatial inverse, helix manoeuvre, characteristics, no closed loop|space-time nodes|gen_spatial_chars|$ladder_spatial"
    "spatial-fem-loop|spatial inverse, helix manoeuvre, space-time FEM, closed-loop replay included|space-time nodes|gen_spatial_fem_loop|$ladder_spatial"
    "flex-elements|3D flying spaghetti, 1000 time elements (p = 1)|beam elements|gen_flex_elements|$ladder_flex_el"
    "flex-steps|3D flying spaghetti, 16 beam elements (p = 1)|time elements|gen_flex_steps|$ladder_flex_steps"
)

median() { sort -g | awk '{a[NR]=$1} END{if(NR==0){print "nan"} else if(NR%2){print a[(NR+1)/2]} else {print (a[NR/2]+a[NR/2+1])/2}}'; }
json_num() { # json_num FILE KEY: top-level number (or "nan")
    sed -n "s/^  \"$2\": \([-0-9.eE+]*\),\{0,1\}$/\1/p" "$1" | head -1 | grep . || echo nan
}
json_sum() { # json_sum FILE KEY: sum of every number "KEY": x in the file (or "nan" if none)
    sed -n "s/^ *\"$2\": \([-0-9.eE+]*\),\{0,1\}$/\1/p" "$1" | awk '{s += $1; n++} END {if (n) printf "%.6g\n", s; else print "nan"}'
}
flex_rows="$WORK/flex.tsv"
: >"$flex_rows"

for spec in "${ladders[@]}"; do
    IFS='|' read -r id title unit gen sizes <<<"$spec"
    want "$id" || continue
    override="SIZES_${id//-/_}"
    sizes="${!override:-$sizes}"
    echo "== $title" >&2
    for n in $sizes; do
        scen="$WORK/$id-$n.toml"
        size=$($gen "$n" "$scen")
        out="$WORK/out-$id-$n"
        cmd=("$STMECH" run "$scen" --out "$out" --force "${plots_flag[@]}")
        # warm-up run (also catches failures and timeouts)
        status=0
        timeout "$TIMEOUT" "${cmd[@]}" >"$WORK/log.txt" 2>&1 || status=$?
        if [[ "$status" == 124 ]]; then
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$title" "$unit" "$n" "$size" "timeout" nan nan nan >>"$rows"
            echo "  $n: more than $TIMEOUT s, ladder stopped" >&2
            break
        elif [[ "$status" != 0 ]]; then
            echo "error: $id $n failed:" >&2
            tail -5 "$WORK/log.txt" >&2
            continue
        fi
        : >"$WORK/runs.tsv"
        for _ in $(seq "$RUNS"); do
            t0=$(date +%s%N)
            /usr/bin/time -f "%M" -o "$WORK/rss.txt" "${cmd[@]}" >/dev/null 2>&1
            t1=$(date +%s%N)
            printf '%s\t%s\t%s\t%s\n' "$(awk "BEGIN{print ($t1 - $t0) / 1e9}")" \
                "$(json_num "$out/summary.json" wall_time_seconds)" \
                "$(json_num "$out/summary.json" output_wall_time_seconds)" "$(cat "$WORK/rss.txt")" >>"$WORK/runs.tsv"
        done
        col() { cut -f"$1" "$WORK/runs.tsv" | grep -v nan | median; }
        total=$(col 1) solve=$(col 2) output=$(col 3) rss_kb=$(col 4)
        if [[ "$id" == flex-* ]]; then
            # beam elements × time elements, and the split of the last run's solve
            s="$out/summary.json"
            els=$(sed -n 's/^elements = \([0-9]*\).*/\1/p' "$scen")
            steps=$(sed -n 's/^blocks = \([0-9]*\).*/\1/p' "$scen")
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$els" "$steps" "$total" "$solve" "$output" \
                "$(json_sum "$s" assembly_seconds)" "$(json_sum "$s" factorization_seconds)" \
                "$(json_sum "$s" solve_seconds)" "$(json_sum "$s" iterations)" "$(json_sum "$s" factorizations)" >>"$flex_rows"
        fi
        if [[ "$have_hyperfine" == 1 ]]; then
            hyperfine -N -w 1 -r "$RUNS" --export-json "$WORK/hf.json" "${cmd[*]}" >/dev/null 2>&1
            total=$(sed -n 's/.*"median": \([0-9.e+-]*\).*/\1/p' "$WORK/hf.json" | head -1)
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$title" "$unit" "$n" "$size" "$total" "$solve" "$output" "$rss_kb" >>"$rows"
        printf '  %-8s size %-9s total %8.3f s  solve %.4s s  output %.4s s  peak %6.1f MB\n' \
            "$n" "$size" "$total" "$solve" "$output" "$(awk "BEGIN{print $rss_kb/1024}")" >&2
    done
done

# ---- table with the fitted growth exponents ------------------------------------------------
{
    echo "Whole \`stmech run\` processes ($(date -u +%Y-%m-%d), $(nproc) cores, $("$STMECH" --version), median of $RUNS runs$([[ $have_hyperfine == 1 ]] && echo ', total by hyperfine'))."
    echo
    echo "| ladder | size | unit | total [s] | solve [s] | output [s] | peak RSS [MB] |"
    echo "|---|---:|---|---:|---:|---:|---:|"
    awk -F'\t' -v lim="$TIMEOUT" '{printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $5, $3, ($6=="timeout"?"> " lim:sprintf("%.3f",$6)), ($7=="nan"?"–":sprintf("%.3f",$7)), ($8=="nan"?"–":sprintf("%.3f",$8)), ($9=="nan"?"–":sprintf("%.1f",$9/1024))}' "$rows"
    echo
    echo "Growth exponent k of total time ∝ size^k (log-log least squares; process start-up"
    echo "flattens the small sizes, so the upper half of each ladder is fitted too):"
    echo
    echo "| ladder | what | k (all sizes) | k (upper half) | goal |"
    echo "|---|---|---:|---:|---|"
    awk -F'\t' '
        $6 == "timeout" { t[$1]=$2; timed_out[$1]=1; next }
        { id[NR]=$1; t[$1]=$2; x[$1]=x[$1] " " $5; y[$1]=y[$1] " " $6; if (!($1 in seen)) { seen[$1]=1; order[++n]=$1 } }
        function fit(xs, ys,   a, b, m, i, sx, sy, sxx, sxy, lx, ly) {
            m = split(xs, a, " "); split(ys, b, " ")
            if (m < 2) return "–"
            sx = sy = sxx = sxy = 0
            for (i = 1; i <= m; i++) { lx = log(a[i]); ly = log(b[i]); sx += lx; sy += ly; sxx += lx*lx; sxy += lx*ly }
            return sprintf("%.2f", (m*sxy - sx*sy) / (m*sxx - sx*sx))
        }
        function upper(s,   a, m, i, h, r) { m = split(s, a, " "); h = int(m / 2); if (m - h < 2) h = m - 2; if (h < 0) h = 0
            r = ""; for (i = h + 1; i <= m; i++) r = r " " a[i]; return r }
        END { for (i = 1; i <= n; i++) { k = order[i]; all = fit(x[k], y[k]); l2 = fit(upper(x[k]), upper(y[k]));
              verdict = (k in timed_out) ? "✗ (timed out)" : ((l2+0 <= 1.1) ? "≤ 1.1 ✓" : "≤ 1.1 ✗")
              printf "| %s | %s | %s | %s | %s |\n", k, t[k], all, l2, verdict } }
    ' "$rows"
    if [[ -s "$flex_rows" ]]; then
        echo
        echo "Flexible multibody: time per beam element per time step (solve wall time over beam elements ×"
        echo "time elements) and the split of the solve (assembly, numeric factorisation, triangular"
        echo "solves: sums over the blocks of summary.json of the last run; the rest of the solve is the"
        echo "predictor and the bookkeeping):"
        echo
        echo "| ladder | beam elements | time elements | total [s] | solve [s] | µs / element / step | assembly [s] | factorisation [s] | triangular solves [s] | output [s] | Newton iterations | factorisations |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        awk -F'\t' '{printf "| %s | %s | %s | %.3f | %.3f | %.2f | %.3f | %.3f | %.3f | %.3f | %s | %s |\n", $1, $2, $3, $4, $5, 1e6*$5/($2*$3), $7, $8, $9, $6, $10, $11}' "$flex_rows"
    fi
} >"$OUT"
cat "$OUT"
echo "table written to $OUT (runs in $WORK)" >&2
