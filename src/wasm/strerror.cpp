// src/wasm/strerror.cpp — the module's own strerror, in place of libc's.
//
// libc's strerror carries the text of every errno (about 2.4 KB of data, 1.2 KB gzipped) for a
// single caller in the module: the core's "getentropy failed" error, which the widget's loader never
// causes (its getentropy import fills the buffer from crypto.getRandomValues and returns 0, or
// throws). Defining strerror here keeps libc's out of the link; the message names the errno number.
#include <cstring>

extern "C" char* strerror(int errnum) {
    static char text[24] = "errno ";
    char digits[12];
    int n = 0;
    unsigned magnitude = errnum < 0 ? 0u - static_cast<unsigned>(errnum) : static_cast<unsigned>(errnum);
    do {
        digits[n++] = static_cast<char>('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    char* p = text + 6;
    if (errnum < 0) *p++ = '-';
    while (n > 0) *p++ = digits[--n];
    *p = '\0';
    return text;
}
