#!/usr/bin/env bash
# two_tier_table.sh DIR: the measured median of every row of DIR/{healthy,nic,host}/results.csv
# beside DIR/model_{healthy,nic,host}.csv's time for the same schedule and size, as markdown:
# first measured / model per scenario, algorithm and size, then every row's two times
# (tools/device/hosts_two_tier.sh writes DIR). optcc-multi runs its switch form on GPUs, which
# the model names optcc-switch; nccl has no schedule to price ("-"). A row that is not ok
# shows its status.
set -u
dir=${1:?usage: two_tier_table.sh DIR}
rows=$(for s in healthy nic host; do
  r=$dir/$s/results.csv m=$dir/model_$s.csv
  [ -f "$r" ] || continue
  [ -f "$m" ] || m=/dev/null
  awk -F, -v s="$s" '
    FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
    FILENAME == M { a = $c[M, "algorithm"]; if (a == "optcc-switch") a = "optcc-multi"
                    if ($c[M, "status"] == "ok") model[a, $c[M, "bytes"]] = $c[M, "time_us_median"]
                    next }
    { a = $c[R, "algorithm"]; b = $c[R, "bytes"]; st = $c[R, "status"]
      t = st == "ok" ? sprintf("%.1f", $c[R, "time_us_median"]) : st
      mt = (a, b) in model ? sprintf("%.1f", model[a, b]) : "-"
      q = st == "ok" && mt != "-" ? sprintf("%.2f", $c[R, "time_us_median"] / model[a, b]) : "-"
      print s, a, b, t, mt, q }
  ' M="$m" R="$r" "$m" "$r"
done)
# sizes as 64K, 1M, ... in the order met
printf '%s\n' "$rows" | awk '
  function human(b) { return b >= 1048576 ? b / 1048576 "M" : b >= 1024 ? b / 1024 "K" : b }
  NF { if (!($3 in seen)) { seen[$3] = 1; size[ns++] = $3 }
       k = $1 " " $2; if (!(k in have)) { have[k] = 1; key[nk++] = k }
       v[k, $3] = $6 == "-" ? ($4 ~ /^[0-9.]+$/ ? "-" : $4) : $6 }
  END { printf "measured / model:\n\n| scenario | algorithm |"
        for (i = 0; i < ns; i++) printf " %s |", human(size[i]); printf "\n|---|---|"
        for (i = 0; i < ns; i++) printf "---|"; printf "\n"
        for (j = 0; j < nk; j++) { split(key[j], p, " "); printf "| %s | %s |", p[1], p[2]
          for (i = 0; i < ns; i++) printf " %s |", v[key[j], size[i]]; printf "\n" } }'
echo
echo "| scenario | algorithm | bytes | measured median us | model us | measured / model |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "$rows" | awk 'NF { printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }'
