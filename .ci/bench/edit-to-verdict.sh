#!/bin/bash
# Edit-to-verdict per lab: reference solution in place, then N interleaved pairs of
# (one-line edit of rustlings' intro2 + `rustlings run intro2`) and (one-line edit of the
# learner file + `cargo labs check N`); prints medians. The learner files are put back as
# they were (kept in a scratch folder meanwhile), whatever they held. Teacher's edition.
N=${N:-3}
RUSTLINGS=${RUSTLINGS:?set RUSTLINGS to a rustlings checkout (cargo install rustlings; rustlings init)}
RL=$RUSTLINGS/exercises/00_intro/intro2.rs
cd "$(dirname "$0")/../.."
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for LAB in ${LABS:-01 02 03 04 05 06 07 08 09 10}; do
  dir=$(ls -d labs/${LAB}-*); sol=$(ls -d solutions/${LAB}-*)
  files=$(python3 -c "import tomllib;d=tomllib.load(open('$dir/lab.toml','rb'));print(' '.join(d['learner_files']))")
  kept=$(mktemp -d)
  for f in $files; do mkdir -p "$kept/$(dirname $f)"; cp "$dir/$f" "$kept/$f"; cp "$sol/$f" "$dir/$f"; done
  first=$(echo $files | cut -d' ' -f1)
  cargo labs check $LAB >/dev/null 2>&1
  rs=(); ws=()
  for i in $(seq 1 $N); do
    echo "// edit $i $RANDOM" >> $RL
    s=$(date +%s%N); (cd "$RUSTLINGS" && rustlings run intro2 >/dev/null 2>&1); e=$(date +%s%N)
    rs+=($(( (e-s)/1000000 )))
    echo "// edit $i $RANDOM" >> $dir/$first
    s=$(date +%s%N); cargo labs check $LAB >/dev/null 2>&1; rc=$?; e=$(date +%s%N)
    ws+=($(( (e-s)/1000000 )))
  done
  for f in $files; do cp "$kept/$f" "$dir/$f"; done; rm -r "$kept"
  sed -i "/^\/\/ edit /d" "$RL"
  r=$(printf '%s\n' "${rs[@]}" | med); w=$(printf '%s\n' "${ws[@]}" | med)
  echo "$LAB check=${w}ms rustlings=${r}ms ratio=$(echo "scale=2; $w/$r" | bc) last_rc=$rc"
done
