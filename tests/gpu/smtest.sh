. tests/gpu/lib.sh
L="$O/sm.log"
d=(--sizes 1G --degrade 3:2.0 --pipeline 0 -n 20 -w 5)
row "$L" 90 "sm ring optcc optcc-switch" --algo ring,optcc,optcc-switch --transport sm "${d[@]}"
for k in 6 8 16 24; do row "$L" 60 "sm k=$k" --algo optcc-switch --segments $k --transport sm "${d[@]}"; done
row "$L" 60 "sm healthy" --algo ring,optcc-switch --transport sm --sizes 1G --pipeline 0 -n 20 -w 5
echo "done in $(( $(date +%s) - T0 )) s" | tee -a "$L"
