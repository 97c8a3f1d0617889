#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/results.md from the committed runs under bench/results/<machine>/<experiment>/ (each a run
# directory as cdlab run writes it: meta.ini, config.ini, summary.csv, frames.csv): the machine and
# build from meta.ini, then a table per kind — cubes: the ratio of every peer to cdlab's fastest
# method (scripts/ratio-table.sh) and every method's median ms per frame per cube count; max_fps:
# each method's largest cube count at 60 FPS; tri_tri: mean operations per test against a/H;
# bodies: each variant's median frame.
# Markdown on stdout; the docs_results test checks that docs/results.md is this output.
# usage: sh scripts/results.sh [RESULTS_DIR]      (default bench/results)
#        sh scripts/results.sh > docs/results.md
set -eu
export LC_ALL=C  # the glob order and awk's number formats must not depend on the locale
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$here/../bench/results}
[ -d "$root" ] || { echo "results.sh: $root: no such directory" >&2; exit 2; }

# The value of key in section of an INI file (continuation lines joined).
ini() {
    awk -v sec="$2" -v key="$3" '
        /^\[/ { cur = substr($0, 2, index($0, "]") - 2); on = 0; next }
        cur == sec && $1 == key && $2 == "=" { on = 1; v = $0; sub(/^[^=]*= */, "", v); next }
        on && /^[ \t]/ { s = $0; sub(/^[ \t]+/, "", s); v = v (v == "" ? "" : " ") s; next }
        { on = 0 }
        END { print v }' "$1"
}

# A Markdown table from tab-separated "row, column, value" lines: rows in the order they come,
# columns sorted by number (as printed), an empty cell where a pair is missing; $1 heads the rows.
pivot() {
    awk -F'\t' -v corner="$1" '
        {
            if (!($1 in seen_r)) { seen_r[$1] = 1; rs[++nr] = $1 }
            if (!($2 in seen_c)) { seen_c[$2] = 1; cs[++nc] = $2 }
            v[$1, $2] = $3
        }
        END {
            for (i = 1; i <= nc; i++) for (j = i + 1; j <= nc; j++) if (cs[j] + 0 < cs[i] + 0) { t = cs[i]; cs[i] = cs[j]; cs[j] = t }
            printf "| %s |", corner; for (j = 1; j <= nc; j++) printf " %s |", cs[j]; printf "\n|---|"
            for (j = 1; j <= nc; j++) printf "---|"; printf "\n"
            for (i = 1; i <= nr; i++) {
                printf "| %s |", rs[i]
                for (j = 1; j <= nc; j++) printf " %s |", ((rs[i], cs[j]) in v) ? v[rs[i], cs[j]] : ""
                printf "\n"
            }
        }'
}

# The awk function label(): a cubes point's workload as words, from the scene columns that differ
# from the standard scene (layout, size_dist with size_ratio, moving, sleep) and the run's simulation
# (awk variable sim, empty for a seeded scene; the simulation column where the run has one): "uniform", "clusters", "pareto sizes 1-20",
# "moving 0.1", "sleep 4", "sim pile". Needs h[] (column index by name) filled from the header.
label_awk='
function col(name) { return (name in h) ? $h[name] : "" }
function label(   l) {
    if (sim != "") return "sim " (col("simulation") != "" ? col("simulation") : sim)
    l = (col("layout") == "" ? "uniform" : col("layout"))
    if (col("size_dist") != "" && col("size_dist") != "uniform") l = (l == "uniform" ? "" : l ", ") col("size_dist") " sizes 1-" col("size_ratio") + 0
    if (col("moving") != "" && col("moving") + 0 < 1) l = (l == "uniform" ? "" : l ", ") "moving " col("moving") + 0
    if (col("sleep") != "" && col("sleep") + 0 > 0) l = (l == "uniform" ? "" : l ", ") "sleep " col("sleep") + 0
    return l
}'

# A run of the workloads suite (experiments/workloads.suite): its one-thread points are rows of the
# table "which method wins where".
is_workloads_run() {
    case $(basename "$1") in workloads_threads) return 1 ;; workloads_* | broad_coherence) ;; *) return 1 ;; esac
    [ "$(ini "$1/meta.ini" run kind)" = cubes ]
}

# The simulation a cubes run replays ([scene] source = simulate), or nothing.
run_simulation() {
    if [ "$(ini "$1/config.ini" scene source)" = simulate ]; then
        s=$(ini "$1/config.ini" scene simulation)
        echo "${s:-pile}"
    fi
}

# Per workload of every workloads run under the machine directory $1 (one thread): cdlab's fastest
# method and the fastest peer by median ms per frame, and how many times faster cdlab's is, with
# the reason from the machine directory's why.tsv (workload, cubes, reason; tab-separated, #
# comments): the reasons quote that machine's runs.
wins_table() {
    for run in "$1"/*/; do
        run=${run%/}
        is_workloads_run "$run" || continue
        awk -F, -v OFS='\t' -v sim="$(run_simulation "$run")" -v run="$(basename "$run")" "$label_awk"'
            NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
            col("threads") != "" && col("threads") != 1 { next }
            { t = $h["frame_ms_median"]; if (t != "NA" && t != "") print label(), $h["cubes"] + 0, run, $h["method"], t }' "$run/summary.csv"
    done | {
    echo "| workload | cubes | run | cdlab fastest | ms/frame | fastest peer | ms/frame | peer / cdlab | why |"
    echo "|---|---|---|---|---|---|---|---|---|"
    awk -F'\t' -v why="$1/why.tsv" -v whyname="bench/results/$(basename "$1")/why.tsv" '
        BEGIN {
            while ((getline line < why) > 0) {
                if (line ~ /^#/ || line == "") continue
                split(line, f, "\t"); reason[f[1] SUBSEP f[2]] = f[3]
            }
        }
        {
            k = $1 SUBSEP $2 SUBSEP $3
            if (!(k in seen)) { seen[k] = 1; order[++n] = k }
            peer = ($4 ~ /^(fcl|bullet|cgal|ode)_/)
            if (peer && (!(k in pt) || $5 + 0 < pt[k])) { pt[k] = $5 + 0; pm[k] = $4 }
            if (!peer && (!(k in ct) || $5 + 0 < ct[k])) { ct[k] = $5 + 0; cm[k] = $4 }
        }
        # Rows by cube count, then in the suite'"'"'s order of workloads (layouts, sizes, moving
        # fraction, sleep, simulations), then by run; the sort keys go before a tab.
        function rank(l) {
            if (l ~ /^uniform/) return 0
            if (l ~ /^clusters/) return 1
            if (l ~ /^ground/) return 2
            if (l ~ /^level/) return 3
            if (l ~ /sizes/) return 4
            if (l ~ /^moving/) return 5
            if (l ~ /^sleep/) return 6
            return 7
        }
        END {
            for (i = 1; i <= n; i++) {
                k = order[i]; split(k, f, SUBSEP)
                r = (f[1] SUBSEP f[2]) in reason ? reason[f[1], f[2]] : "(no reason written in " whyname ")"
                mv = (f[1] ~ /^moving /) ? substr(f[1], 8) + 0 : 1
                printf "%d\t%d\t%g\t%s\t%s\t| %s | %d | %s | %s | %.4g | %s | %.4g | %s | %s |\n", f[2], rank(f[1]), mv, f[1], f[3],
                    f[1], f[2], f[3], (k in cm) ? cm[k] : "none", ct[k], (k in pm) ? pm[k] : "none", pt[k],
                    ((k in cm) && (k in pm)) ? sprintf("%.1f×", pt[k] / ct[k]) : "NA", r
            }
        }' | sort -t"$(printf '\t')" -k1,1n -k2,2n -k3,3g -k4,4 -k5,5 | cut -f6-
    }
}

# A cubes run: the peers against cdlab's fastest method, then every method's median ms per frame
# at every cube count (a method run on several thread counts is one row per count).
cubes_tables() {
    if ! is_workloads_run "$1" && awk -F, 'NR > 1 && $0 ~ /,(fcl|bullet|cgal|ode)_/ { found = 1 } END { exit !found }' "$1/summary.csv"; then
        printf '\nPeers against cdlab'"'"'s fastest method (median ms per frame; × = how many times slower):\n\n'
        sh "$here/ratio-table.sh" "$1"
    fi
    printf '\nMedian ms per frame (motion + broad phase + narrow step), every method:\n\n'
    wl=0
    is_workloads_run "$1" || [ "$(basename "$1")" = workloads_threads ] && wl=1
    awk -F, -v OFS='\t' -v wl=$wl -v sim="$(run_simulation "$1")" "$label_awk"'
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        {
            m = $h["method"]; th = ("threads" in h) ? $h["threads"] : "1"  # NA in the row of a skipped point
            if (th != "NA" && th != 1) m = m " (" th " threads)"
            t = $h["frame_ms_median"]
            print m, (wl ? label() " " : "") $h["cubes"] + 0, (t == "NA" || t == "") ? "skipped" : sprintf("%.4g", t)
        }' "$1/summary.csv" | pivot method
}

# A cubes run with several thread counts: each method's one-thread frame over its N-thread frame,
# per scene (the workload label of the point and its cube count).
threads_table() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        ("threads" in h) && $h["threads"] != "NA" { t[$h["threads"]] = 1 } END { exit length(t) < 2 }' "$1/summary.csv" || return 0
    printf '\nSpeed-up on N threads (the one-thread frame over the N-thread frame, wall clock):\n\n'
    awk -F, -v OFS='\t' -v sim="$(run_simulation "$1")" "$label_awk"'
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        {
            k = $h["method"] SUBSEP label() " " $h["cubes"]; tm = $h["frame_ms_median"]
            if (tm == "NA" || tm == "") next
            if ($h["threads"] == 1) one[k] = tm; else { n[k, $h["threads"]] = tm; ths[$h["threads"]] = 1 }
            if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
        }
        END {
            for (i = 1; i <= nk; i++) for (th in ths) if ((order[i], th) in n && (order[i] in one)) {
                split(order[i], f, SUBSEP)
                print f[1], f[2] ", " th " threads", sprintf("%.2f×", one[order[i]] / n[order[i], th])
            }
        }' "$1/summary.csv" | pivot method
}

# A max_fps run: each search's answer (every probe row of a search carries it), largest first. A
# search is its method plus the search keys that take several values in the run (update, clock,
# statistic, depth, looseness), which head columns of their own.
max_fps_table() {
    printf '\nLargest cube count whose frame statistic ([search] statistic = %s, clock = %s) stays within 1/%s s, per search:\n\n' \
        "$(ini "$1/meta.ini" values search.statistic)" "$(ini "$1/meta.ini" values search.clock)" \
        "$(ini "$1/meta.ini" values search.target_fps)"
    awk -F, -v keys="depth looseness update statistic clock" '
        NR == FNR && FNR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; nk = split(keys, k, " "); next }
        NR == FNR { for (j = 1; j <= nk; j++) if ((k[j] in h) && !((j, $h[k[j]]) in seen)) { seen[j, $h[k[j]]] = 1; nv[j]++ }; next }
        FNR == 1 {
            for (j = 1; j <= nk; j++) if (nv[j] > 1) shown[++ns] = k[j]
            # The header and the rule carry sort keys above any answer, so they stay on top.
            printf "999999999999\t| method |"; for (j = 1; j <= ns; j++) printf " %s |", shown[j]; printf " max cubes | probes |\n"
            printf "999999999998\t|---|"; for (j = 1; j <= ns; j++) printf "---|"; printf "---|---|\n"
            next
        }
        {
            key = $h["method"]; for (j = 1; j <= ns; j++) key = key " | " $h[shown[j]]
            if (!(key in a)) order[++n] = key
            a[key] = $h["max_cubes"]; p[key]++
        }
        END { for (i = 1; i <= n; i++) printf "%s\t| %s | %s | %d |\n", a[order[i]], order[i], a[order[i]], p[order[i]] }' \
        "$1/summary.csv" "$1/summary.csv" | sort -t"$(printf '\t')" -k1,1nr -k2,2 | cut -f2-
}

# A tri_tri run: mean arithmetic operations per test (+, -, *, /) of each algorithm and workload
# against a/H; deterministic, the same on every machine.
tri_tri_table() {
    printf '\nMean arithmetic operations per test (additions, subtractions, multiplications, divisions) against a/H:\n\n'
    awk -F, -v OFS='\t' '
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        { print $h["workload"] ", " $h["algorithm"], $h["a_over_h"], sprintf("%.6g", $h["ops_mean"]) }' "$1/summary.csv" |
        pivot "workload, algorithm"
}

# A bodies run: per point the method, hierarchy (with the hybrid's layer counts), mode, bodies and
# whichever of faces, density and deform vary in the run; the median frame and narrow step, the
# volume tests per frame (Nv), and where bodies deform the refit, Nu, Cu and the cost model's
# narrow + refit estimate; the body pairs; and fcl_obb / this, FCL's manager with BVHModel<OBB> over the row (fcl_obb's median in
# the same mode and scene, the mean of its points: FCL's methods ignore [method] hierarchy, so
# their rows repeat per value); in a run of the paper's protocol (broad phase all), obb / this: the
# OBB tree's frame over the row's (the row's FPS over the OBB tree's: the paper's ratio on the
# hybrid's rows).
bodies_table() {
    printf '\nMedian ms per frame of the body scene (broad phase + hierarchy queries), per point'
    printf '%s' "; fcl_obb / this: fcl_obb's frame over the row's, same mode and scene, where the run has fcl_obb"
    if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $h["method"] == "all" { f = 1 } END { exit !f }' "$1/summary.csv"; then
        printf '%s' "; obb / this: the OBB tree's frame over the row's, same mode and scene (the hybrid's FPS over the OBB tree's on the hybrid's rows: Zhu et al. 2008 report 1.8-2.9)"
    fi
    printf ':\n\n'
    awk -F, '
        function scene() { return $h["mode"] "/" $h["bodies"] "/" $h["faces"] "/" $h["density"] "/" $h["deform"] }
        NR == FNR {
            if (FNR == 1) { for (i = 1; i <= NF; i++) h[$i] = i; next }
            if (FNR == 2) { f0 = $h["faces"]; d0 = $h["density"]; u0 = $h["deform"] }
            if ($h["faces"] != f0) vf = 1
            if ($h["density"] != d0) vd = 1
            if ($h["deform"] != u0 || $h["deform"] + 0 > 0) vu = 1
            if ($h["method"] == "fcl_obb" && $h["frame_ms_median"] != "NA") { fs[scene()] += $h["frame_ms_median"]; fn[scene()]++; anyf = 1 }
            if ($h["method"] == "all") anya = 1
            if ($h["method"] == "all" && $h["hierarchy"] == "obb" && $h["frame_ms_median"] != "NA") ob[scene()] = $h["frame_ms_median"]
            next
        }
        FNR == 1 {
            printf "| method | hierarchy | mode | bodies |%s%s%s ms/frame | narrow ms | Nv |%s body pairs |%s\n",
                (vf ? " faces |" : ""), (vd ? " density |" : ""), (vu ? " deform |" : ""),
                (vu ? " refit ms | Nu | Cu ns | model ms |" : ""), (anyf ? " fcl_obb / this |" : "") (anya ? " obb / this |" : "")
            n = 8 + vf + vd + vu + (vu ? 4 : 0) + anyf + anya; line = "|"
            for (i = 0; i < n; i++) line = line "---|"
            print line
            next
        }
        {
            t = $h["frame_ms_median"]; nm = $h["narrow_ms_median"]; k = scene()
            hy = $h["hierarchy"]
            if (("hybrid_x" in h) && $h["hybrid_x"] != "NA" && $h["hybrid_x"] != "")
                hy = sprintf("%s (x = %s, y = %s)", hy, $h["hybrid_x"], $h["hybrid_y"])
            out = sprintf("| %s | %s | %s | %s |", $h["method"], hy, $h["mode"], $h["bodies"])
            if (vf) out = out " " $h["faces"] " |"
            if (vd) out = out " " $h["density"] " |"
            if (vu) out = out " " $h["deform"] " |"
            nv = $h["bv_tests_mean"]
            out = out sprintf(" %s | %s | %s |", (t == "NA" ? "skipped" : sprintf("%.4g", t)), (nm == "NA" ? "NA" : sprintf("%.4g", nm)),
                (nv == "NA" ? "NA" : sprintf("%.0f", nv)))
            if (vu) {
                rf = $h["refit_ms_median"]; cu = $h["cu_ns"]; mo = $h["model_ms"]
                out = out sprintf(" %s | %.6g | %s | %s |", (rf == "NA" ? "NA" : sprintf("%.4g", rf)), $h["nu_mean"],
                    (cu == "NA" ? "NA" : sprintf("%.1f", cu)), (mo == "NA" ? "NA" : sprintf("%.4g", mo)))
            }
            out = out sprintf(" %.6g |", $h["pairs_mean"])
            if (anyf) out = out " " ((fn[k] && t != "NA" && t > 0) ? sprintf("%.2f", fs[k] / fn[k] / t) : "NA") " |"
            if (anya) out = out " " (($h["method"] == "all" && (k in ob) && t != "NA" && t > 0) ? sprintf("%.2f", ob[k] / t) : "NA") " |"
            print out
        }' "$1/summary.csv" "$1/summary.csv"
}

cat <<'EOF'
# Results

<!-- Generated by `sh scripts/results.sh > docs/results.md` from the runs committed under
bench/results/; do not edit (the docs_results test checks that this page is the script's output). -->

Each section is one run of a shipped config, committed with its `meta.ini` (machine, build,
pinning), `config.ini`, `summary.csv` and `frames.csv`. Compare methods within a run: every
method of a run saw the same machine in the same minutes (the configs run their repeats in
rounds, a process per round). Times are medians over frames × repeats on the runner thread's CPU
clock where the config says `clock = cpu`; the deterministic columns (pairs, candidates, tests)
are the same on any machine.
EOF

for mdir in "$root"/*/; do
    mdir=${mdir%/}
    found=0
    for run in "$mdir"/*/; do is_workloads_run "${run%/}" 2>/dev/null && found=1; done
    [ $found = 1 ] || continue
    printf '\n## Which method wins where, on %s\n\n' "$(basename "$mdir")"
    cat <<'EOF'
The workloads suite (`sh scripts/reproduce.sh experiments/workloads.suite`): every broad phase and
every peer on every workload, one core (`chrt -f 50 taskset -c 0`), the runner thread's CPU clock,
each run's points measured back to back, or in rounds where the run's config.ini says `order =
rounds` (a repeat of every point, then the next: Bullet's scenes, since their configs run three
repeats). Per workload: cdlab's fastest method and the fastest peer by median ms per frame (motion +
broad phase + narrow step), and how many times faster cdlab's is.
The runs and their machine are below; the reasons are bench/results/<machine>/why.tsv.

EOF
    table=$(wins_table "$mdir")
    printf '%s\n' "$table"
    # The range the front page quotes: the ratio column over every row with both a method and a peer.
    printf '%s\n' "$table" | awk -F' [|] ' '
        NR > 2 && $8 ~ /×$/ { r = $8 + 0; v[++n] = r; if (r < 5) under++
            if (n == 1 || r < lo) { lo = r; lw = substr($1, 3) ", " $2 } if (n == 1 || r > hi) { hi = r; hw = substr($1, 3) ", " $2 } }
        END {
            if (!n) exit
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
            med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            printf "\nOver these %d rows cdlab'"'"'s fastest method is %.1f× (%s cubes) to %.1f× (%s cubes) faster than the fastest peer, median %.1f×; under 5× on %d of %d.\n",
                n, lo, lw, hi, hw, med, under, n
        }'
done

for dir in "$root"/*/*/; do
    dir=${dir%/}
    [ -f "$dir/meta.ini" ] && [ -f "$dir/summary.csv" ] || continue
    machine=$(basename "$(dirname "$dir")")
    experiment=$(basename "$dir")
    rel=${dir#"$root"/}
    kind=$(ini "$dir/meta.ini" run kind)
    printf '\n## %s on %s\n\n' "$experiment" "$machine"
    printf 'Machine: %s, %s CPUs (%s), SIMD paths: %s. ' "$(ini "$dir/meta.ini" machine cpu_model)" \
        "$(ini "$dir/meta.ini" machine cpus_online)" "$(ini "$dir/meta.ini" machine topology)" \
        "$(ini "$dir/meta.ini" machine simd)"
    printf 'Pinning: %s (CPU %s). ' "$(ini "$dir/meta.ini" pinning status)" "$(ini "$dir/meta.ini" pinning actual_cpu)"
    commit=$(ini "$dir/meta.ini" cdlab git_commit)
    case $commit in
        "differs between shards"*) commit="the commits of its shards (its meta.ini [merge])" ;;  # a merged run's
        *) commit="commit $(printf '%.12s' "$commit")" ;;
    esac
    printf 'cdlab %s at %s (%s, %s), run %s. ' "$(ini "$dir/meta.ini" cdlab version)" \
        "$commit" "$(ini "$dir/meta.ini" cdlab build_type)" "$(ini "$dir/meta.ini" cdlab compiler)" \
        "$(ini "$dir/meta.ini" run date_start)"
    printf 'Data: [bench/results/%s](../bench/results/%s), config [%s](../bench/results/%s/config.ini).\n' \
        "$rel" "$rel" "$(ini "$dir/meta.ini" config path)" "$rel"
    case $kind in
    cubes) cubes_tables "$dir"; threads_table "$dir" ;;
    max_fps) max_fps_table "$dir" ;;
    tri_tri) tri_tri_table "$dir" ;;
    bodies) bodies_table "$dir" ;;
    esac
done
