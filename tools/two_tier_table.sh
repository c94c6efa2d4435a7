#!/usr/bin/env bash
# two_tier_table.sh DIR: the measured median of every row of DIR/{healthy,nic,host}/results.csv
# beside DIR/model_{healthy,nic,host}.csv's time for the same schedule and size, as a markdown
# table (tools/device/hosts_two_tier.sh writes DIR). optcc-multi runs its switch form on GPUs,
# which the model names optcc-switch; nccl has no schedule to price. A row that is not ok shows
# its status and reason-free "n/a".
set -u
dir=${1:?usage: two_tier_table.sh DIR}
echo "| scenario | algorithm | bytes | measured median us | model us | measured / model |"
echo "|---|---|---|---|---|---|"
for s in healthy nic host; do
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
      printf "| %s | %s | %s | %s | %s | %s |\n", s, a, b, t, mt, q }
  ' M="$m" R="$r" "$m" "$r"
done
