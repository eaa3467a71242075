#!/usr/bin/env bash
# Regenerates the encoder's reference data with a real assembler:
#   cases.s       the test instructions, written by the test `committed_assembly_is_the_case_list`
#                 with TILEC_BLESS=1
#   expected.tsv  one line per instruction of cases.s:
#                 <32-bit word in hex> TAB <llvm-mc -M no-aliases text> TAB <llvm-mc text>
# Run it after changing tests/common/cases.rs and commit both files. The tests read only
# the committed files; neither the build nor the tests need llvm-mc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
llvm_mc="${LLVM_MC:-llvm-mc-19}"
mc=("$llvm_mc" -triple=riscv64 -mattr=+v,+d,+f,+m,+a --show-encoding)
if ! command -v "$llvm_mc" >/dev/null; then
    # clang-19's integrated assembler is the same MC layer; `-M no-aliases` is its
    # `-mllvm -riscv-no-aliases`.
    mc=(clang-19 -cc1as -triple riscv64 -target-feature +v -target-feature +d -target-feature +f
        -target-feature +m -target-feature +a -filetype asm -show-encoding)
fi

TILEC_BLESS=1 cargo test --quiet --manifest-path "$here/../../Cargo.toml" --test encodings \
    committed_assembly_is_the_case_list >/dev/null

# `	mnemonic	operands   # encoding: [0x57,0x04,0x88,0x02]` -> `02880457<TAB>mnemonic operands`
extract() {
    awk '/# encoding: \[/ {
        split($0, parts, "# encoding: ");
        text = parts[1];
        gsub(/[ \t]+/, " ", text); sub(/^ /, "", text); sub(/ $/, "", text);
        bytes = parts[2]; gsub(/[][]/, "", bytes);
        n = split(bytes, b, ",");
        if (n != 4) { print "not a 32-bit encoding: " $0 > "/dev/stderr"; exit 1 }
        printf "%s%s%s%s\t%s\n", substr(b[4], 3), substr(b[3], 3), substr(b[2], 3), substr(b[1], 3), text
    }'
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Warnings (e.g. about SEW/LMUL combinations) go to stderr and are expected; errors fail.
no_aliases=(-M no-aliases)
[ "${mc[0]}" = clang-19 ] && no_aliases=(-mllvm -riscv-no-aliases)
"${mc[@]}" "${no_aliases[@]}" "$here/cases.s" 2>"$tmp/err1" | extract >"$tmp/canonical"
"${mc[@]}" "$here/cases.s" 2>"$tmp/err2" | extract >"$tmp/aliases"
if grep -q "error:" "$tmp/err1" "$tmp/err2"; then
    grep -A2 "error:" "$tmp/err1" >&2
    exit 1
fi

instructions="$(grep -vc '^#' "$here/cases.s")"
for f in canonical aliases; do
    if [ "$(wc -l <"$tmp/$f")" -ne "$instructions" ]; then
        echo "llvm-mc produced $(wc -l <"$tmp/$f") encodings for $instructions instructions" >&2
        exit 1
    fi
done
if ! cmp -s <(cut -f1 "$tmp/canonical") <(cut -f1 "$tmp/aliases"); then
    echo "encodings differ between the two printing styles" >&2
    exit 1
fi
paste "$tmp/canonical" <(cut -f2 "$tmp/aliases") >"$here/expected.tsv"
echo "wrote $instructions encodings to $here/expected.tsv"
