#!/usr/bin/env bash
# Memory estimates against the measured peak: for every problem type at three sizes, the peak
# memory that `stmech check` / `run` / `compare` estimate before solving (read from the refusal
# of `--max-memory 1`, which prints the estimate and solves nothing) and the peak resident
# memory of the whole process (max RSS of GNU /usr/bin/time) of the real run with the default
# settings (plots included). Writes one markdown table: type, size, estimate, measured peak,
# estimate/measured (the claim of `docs/verification.md`: within [0.5, 2]).
#
#   bash benches/memory.sh                        # build the release binary, every type
#   STMECH=/path/to/stmech bash benches/memory.sh # another binary (no build)
#   ONLY=flex-dynamics,spatial-fem bash benches/memory.sh   # some types only
#
# Environment: OUT (table, default bench-out/memory.md), WORK (scratch directory, default a
# fresh temp dir). One run per case: the peak of a deterministic run varies by well under
# 1 % from run to run (the allocations are the same), so no repetition is needed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$here/bench-out/memory.md}"
WORK="${WORK:-$(mktemp -d -t stmech-mem-XXXXXX)}"
ONLY="${ONLY:-}"
if [[ -z "${STMECH:-}" ]]; then
    echo "building the release binary ..." >&2
    (cd "$here" && cargo build --release -q -p stmech-cli)
    STMECH="$here/target/release/stmech"
fi
[[ -x "$STMECH" ]] || { echo "error: $STMECH is not an executable" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "error: GNU /usr/bin/time is needed; apt-get install time" >&2; exit 2; }
mkdir -p "$WORK" "$(dirname "$OUT")"
ex="$here/examples"
want() { [[ -z "$ONLY" || ",$ONLY," == *",$1,"* ]]; }

# ---- scenario generators: gen_<type> SIZE FILE -------------------------------------------
gen_rigid() { # double pendulum, p = 2, blocks of 100 elements, h = 0.02 s, SIZE time elements
    sed -e "s/^elements_per_block = .*/elements_per_block = 100/" -e "s/^blocks = .*/blocks = $(($1 / 100))/" \
        -e "s/^end = [0-9].*/end = $(awk "BEGIN{print $1*0.02}")/" "$ex/multibody/01_double_pendulum.toml" >"$2"
}
gen_flex_statics() { # the 45° bend with SIZE quadratic elements
    sed -e "s/^elements = .*/elements = $1/" "$ex/flexible/01_bend_45.toml" >"$2"
}
gen_flex_dynamics() { # clamped rod of SIZE quadratic elements, cG(2), two time elements of 2 ms
    sed -e "s/^elements = 8/elements = $1/" -e "s/^end = 1.0.*/end = 0.004/" -e "s/^blocks = 500/blocks = 2/" \
        "$ex/flexible/05_damped_torsion.toml" >"$2"
}
gen_beam_statics() { # planar cantilever elastica with SIZE quadratic elements
    sed -e "s/^elements = .*/elements = $1/" "$ex/beam/01_cantilever_elastica.toml" >"$2"
}
gen_beam_dynamics() { # planar flying beam with SIZE quadratic elements, 200 steps of 0.025 s
    sed -e "s/^elements = .*/elements = $1/" -e "s/^end = [0-9].*/end = 5.0/" "$ex/beam/03_flying_beam.toml" >"$2"
}
gen_inverse() { # [I] Example 3.2 with SIZE space elements; $3 = method
    { printf 'method = "%s"\n' "$3"; sed -e "s/^resolution = .*/resolution = $1/" "$ex/beam_inverse/example_3_2.toml"; } >"$2"
}
gen_inverse_fem() { gen_inverse "$1" "$2" space-time; }
gen_inverse_chars() { gen_inverse "$1" "$2" characteristics; }
gen_crane() { # the crane example with SIZE rope elements (closed-loop replay included); $3 = method
    sed -e "s/^resolution = .*/resolution = $1/" \
        -e "s/^problem = \"crane\"/problem = \"crane\"\nmethod = \"$3\"/" "$ex/crane/01_swing_free_transfer.toml" >"$2"
}
gen_crane_fem() { gen_crane "$1" "$2" space-time; }
gen_crane_chars() { gen_crane "$1" "$2" characteristics; }
gen_spatial() { # the helix manoeuvre with SIZE arm elements, closed-loop replay included; $3 = method
    sed -e "s/^elements = 32 .*/elements = $1/" -e "s/^method = .*/method = \"$3\"/" \
        "$ex/spatial_inverse/01_helix_twist.toml" >"$2"
}
gen_spatial_fem() { gen_spatial "$1" "$2" space-time; }
gen_spatial_chars() { gen_spatial "$1" "$2" characteristics; }
gen_compare_inverse() { gen_inverse "$1" "$2" space-time; }
gen_compare_spatial() { gen_spatial "$1" "$2" space-time; }
gen_compare_crane() { gen_crane "$1" "$2" space-time; }

# id|description|size unit|command (run or compare)|sizes
types=(
    "rigid|rigid multibody: double pendulum, p = 2, blocks of 100|time elements|run|1000 4000 16000"
    "flex-statics|flexible statics: 45° bend|beam elements|run|64 256 1024"
    "flex-dynamics|flexible dynamics: clamped rod, cG(2), 2 steps|beam elements|run|250 1000 2000"
    "beam-statics|planar beam statics: cantilever elastica|beam elements|run|100 400 1600"
    "beam-dynamics|planar beam dynamics: flying beam, 200 steps|beam elements|run|40 160 640"
    "inverse-fem|beam inverse Ex. 3.2, space-time FEM|space elements|run|20 64 128"
    "inverse-chars|beam inverse Ex. 3.2, characteristics|space elements|run|20 64 128"
    "spatial-fem|spatial inverse, helix, space-time FEM + closed loop|arm elements|run|8 16 32"
    "spatial-chars|spatial inverse, helix, characteristics + closed loop|arm elements|run|8 16 32"
    "crane-fem|crane, space-time FEM + closed loop|rope elements|run|16 64 256"
    "crane-chars|crane, characteristics + closed loop|rope elements|run|16 64 256"
    "compare-inverse|stmech compare, beam inverse Ex. 3.2 (3 methods)|space elements|compare|20 64 128"
    "compare-spatial|stmech compare, spatial helix (2 methods + closed loops)|arm elements|compare|8 16 32"
    "compare-crane|stmech compare, crane (2 methods + closed loops)|rope elements|compare|16 32 64"
)

to_bytes() { # "920 MB" → bytes (binary units, as stmech prints them)
    awk -v v="$1" -v u="$2" 'BEGIN{m=1; if(u=="KB")m=1024; if(u=="MB")m=1024^2; if(u=="GB")m=1024^3; printf "%.0f\n", v*m}'
}
rows="$WORK/rows.tsv"
: >"$rows"
for spec in "${types[@]}"; do
    IFS='|' read -r id title unit cmd sizes <<<"$spec"
    want "$id" || continue
    echo "== $title" >&2
    gen="gen_${id//-/_}"
    for n in $sizes; do
        scen="$WORK/$id-$n.toml"
        $gen "$n" "$scen"
        out="$WORK/out-$id-$n"
        # the estimate: the refusal of a 1-byte limit prints it, before anything is solved
        est=$("$STMECH" "$cmd" "$scen" --out "$out" --force --max-memory 1 2>&1 |
            sed -n 's/.*estimated peak memory ≈ \([0-9.]*\) \([KMG]B\).*/\1 \2/p' | head -1 || true)
        if [[ -z "$est" ]]; then
            echo "error: no estimate for $id $n" >&2
            continue
        fi
        est_b=$(to_bytes $est)
        if ! /usr/bin/time -f "%M" -o "$WORK/rss.txt" "$STMECH" "$cmd" "$scen" --out "$out" --force \
            --max-memory none >"$WORK/log.txt" 2>&1; then
            echo "  $n: the run failed (its peak is still measured):" >&2
            tail -3 "$WORK/log.txt" >&2
        fi
        rss_b=$(($(tail -1 "$WORK/rss.txt") * 1024))
        ratio=$(awk "BEGIN{printf \"%.2f\", $est_b / $rss_b}")
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$title" "$n $unit" "$est_b" "$rss_b" "$ratio" "$id" >>"$rows"
        printf '  %-6s estimate %8.1f MiB  measured %8.1f MiB  ratio %s\n' "$n" \
            "$(awk "BEGIN{print $est_b/1048576}")" "$(awk "BEGIN{print $rss_b/1048576}")" "$ratio" >&2
    done
done

{
    echo "Memory: estimate before solving against the measured peak RSS of the whole process ($(date -u +%Y-%m-%d), $("$STMECH" --version), default settings, plots included)."
    echo
    echo "| problem type | size | estimate (MiB) | measured peak (MiB) | estimate / measured |"
    echo "|---|---|---:|---:|---:|"
    awk -F'\t' '{printf "| %s | %s | %.1f | %.1f | %s |\n", $1, $2, $3/1048576, $4/1048576, $5}' "$rows"
    echo
    awk -F'\t' 'BEGIN{lo=1e9; hi=0} {if($5<lo)lo=$5; if($5>hi)hi=$5} END{printf "estimate/measured from %.2f to %.2f over %d cases.\n", lo, hi, NR}' "$rows"
} >"$OUT"
cat "$OUT"
out_of_range=$(awk -F'\t' '$5 < 0.5 || $5 > 2 {n++} END{print n+0}' "$rows")
[[ "$out_of_range" == 0 ]] || { echo "$out_of_range case(s) outside [0.5, 2]" >&2; exit 1; }
