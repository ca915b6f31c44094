# cmake -DHELP=<program's --help text> -DPROGRAM=<name> -DSUMMARY=<one line> -DVERSION=<v> -DOUT=<file.1>
#   -P help_to_man.cmake
# A man page made of the program's own --help text (so the two never differ): NAME from SUMMARY,
# the text as-is in DESCRIPTION (no fill), SEE ALSO the documentation the package installs.
file(READ "${HELP}" text)
string(REPLACE "\\" "\\e" text "${text}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
string(REPLACE "-" "\\-" text "${text}")
string(TOUPPER "${PROGRAM}" upper)
string(REPLACE "-" "\\-" name "${PROGRAM}")
file(WRITE "${OUT}" ".TH ${upper} 1 \"\" \"paywasm ${VERSION}\" \"paywasm\"\n.SH NAME\n${name} \\- ${SUMMARY}\n"
  ".SH DESCRIPTION\nThe text of \\fB${name} \\-\\-help\\fR:\n.PP\n.nf\n${text}.fi\n"
  ".SH SEE ALSO\n\\fBpaywasm\\fR(1), \\fBpaywasm\\-merchant\\fR(1), \\fBpaywasm\\-sandbox\\fR(1)\n")
