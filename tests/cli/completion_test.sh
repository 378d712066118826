#!/usr/bin/env bash
# The installed bash completion (generated from --help) completes options, their
# values, the commands and file names. Usage: completion_test.sh COMPLETION_FILE.
# Prints 'N passed, M failed'.
set -u
completion=$1
if [ ! -f /usr/share/bash-completion/bash_completion ]; then
  echo "bash-completion is not installed (.ci/install-deps installs it)"; echo "0 passed, 1 failed"; exit 1
fi
source /usr/share/bash-completion/bash_completion
source "$completion"
passed=0 failed=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" && touch disk.img disk.sig other.txt

# complete LINE EXPECTED...: the words offered for the last word of LINE.
complete_line() {
  local line=$1; shift
  COMP_LINE=$line COMP_POINT=${#line}
  read -ra COMP_WORDS <<<"$line"
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _rdelta rdelta "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
  local got; got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
  local want; want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  if [ "$got" = "$want" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: '$line' -> '$got', want '$want'"; fi
}

complete_line "rdelta --in-pl" --in-place --in-place-safe
complete_line "rdelta --no-p" --no-progress
complete_line "rdelta -H " blake2 md4
complete_line "rdelta --rollsum " rabinkarp rollsum
complete_line "rdelta --hash=m" md4
complete_line "rdelta sig" signature
complete_line "rdelta -s " benchmark delta help history info patch prune pull push recover restore signature verify
complete_line "rdelta help p" patch prune pull push
# Files after an option that takes a FILE.
complete_line "rdelta delta --new-signature disk." disk.img disk.sig
complete_line "rdelta push --signature-store o" other.txt
complete_line "rdelta --max-output " 
complete_line "rdelta signature disk." disk.img disk.sig
complete_line "rdelta -f patch disk.img o" other.txt
# --kernel-copy's values, separate and attached.
complete_line "rdelta patch --kernel-copy " always auto never
complete_line "rdelta patch --kernel-copy=a" always auto
# Only the options of the command being typed: --in-place is patch's, --in-place-safe delta's.
complete_line "rdelta patch --in-pl" --in-place
complete_line "rdelta delta --in-pl" --in-place-safe
complete_line "rdelta signature --chec"
complete_line "rdelta info --c" --check
complete_line "rdelta recover --" --help --history-dir --name-in-dir --version
complete_line "rdelta prune --keep-" --keep-daily --keep-last --keep-monthly --keep-weekly
complete_line "rdelta restore --history-dir " disk.img disk.sig other.txt
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
