#!/bin/sh
# help2man.sh LATLAB [COMMAND]: the man page of 'latlab COMMAND' (or of
# latlab itself) in roff, made from its --help text, so the two cannot
# drift: the help text is the single source.
#
# Layout of a help text (docs/cli/*.txt): the first line is
# "latlab <cmd>: <summary>"; a line with no indent ending in ':' starts a
# section ("options:", "EXAMPLES:"); indented lines are kept verbatim;
# other lines are running text. (GNU help2man expects --version and GNU
# option layout on each command and would guess sections; this is
# 40 lines and exact.)
set -eu
bin=$1
cmd=${2:-}
if [ -n "$cmd" ]; then
	"$bin" "$cmd" --help
else
	"$bin" --help
fi | awk -v cmd="$cmd" -v version="$("$bin" --version)" '
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)      # a real minus: options stay copyable
	sub(/^[.\x27]/, "\\\\\\&&", s)
	return s
}
NR == 1 {
	name = cmd == "" ? "latlab" : "latlab-" cmd
	summary = $0
	sub(/^[^:]*: */, "", summary)
	printf ".TH %s 1 \"\" \"%s\" \"latlab manual\"\n", toupper(name), version
	print ".nh"
	print ".ad l"
	print ".SH NAME"
	printf "%s \\- %s\n", esc(name), esc(summary)
	next
}
/^$/ { if (verbatim) { print ".fi"; verbatim = 0 }; blank = 1; next }
/^[^ ].*:$/ && length($0) < 48 {
	if (verbatim) { print ".fi"; verbatim = 0 }
	h = $0; sub(/:$/, "", h)
	printf ".SH %s\n", esc(toupper(h)); blank = 0
	in_commands = h == "commands"; next
}
/^usage:/ || /^ / {
	if (/^usage:/ && !synopsis) {
		if (verbatim) { print ".fi"; verbatim = 0 }
		print ".SH SYNOPSIS"; synopsis = 1
	}
	if (!verbatim) { print ".nf"; verbatim = 1 }
	if (in_commands && cmd == "" && $1 != "")
		seealso = seealso (seealso == "" ? "" : ",\n") \
			  ".BR latlab\\-" $1 " (1)"
	print esc($0); next
}
{
	if (verbatim) { print ".fi"; verbatim = 0 }
	if (!described) { print ".SH DESCRIPTION"; described = 1 }
	else if (blank) print ".PP"
	blank = 0
	print esc($0)
}
END {
	if (verbatim) print ".fi"
	if (seealso != "") print ".SH SEE ALSO\n" seealso
}'
