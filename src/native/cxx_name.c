/* cxx_name.c — see cxx_name.h. Owns the scan of a demangled name from its
 * end: the clone suffixes, the qualifiers, the parameter list matched by
 * its parentheses, then the return type before the last space outside any
 * brackets (not the space of "operator new" or "operator bool"). */
#include "cxx_name.h"

#include <stdbool.h>
#include <string.h>

/* whether s[0, end) ends with word */
static bool cxn_ends_with(const char *s, size_t end, const char *word)
{
    size_t n = strlen(word);
    return end >= n && memcmp(s + end - n, word, n) == 0;
}

size_t cxx_name_short(const char *demangled, size_t *start)
{
    const char *s = demangled;
    size_t end = strlen(s);
    *start = 0;
    /* " [clone .constprop.0]", possibly several */
    while (end && s[end - 1] == ']') {
        size_t i = end - 1;
        while (i && s[i] != '[')
            i--;
        if (s[i] != '[' || i == 0 || s[i - 1] != ' ' || strncmp(s + i, "[clone ", 7) != 0)
            break;
        end = i - 1;
    }
    size_t whole = end;
    /* qualifiers after the parameter list */
    for (bool more = true; more;) {
        more = false;
        static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
        for (size_t q = 0; q < sizeof quals / sizeof quals[0]; q++)
            if (cxn_ends_with(s, end, quals[q])) {
                end -= strlen(quals[q]);
                more = true;
            }
    }
    if (!end || s[end - 1] != ')')
        return whole;
    /* the parameter list: back to its '(' */
    size_t i = end - 1;
    int depth = 0;
    for (;; i--) {
        if (s[i] == ')')
            depth++;
        else if (s[i] == '(' && --depth == 0)
            break;
        if (i == 0)
            return whole;
    }
    if (i == 0)
        return whole;
    end = i;
    /* the return type: up to the last space outside brackets, unless it belongs to an operator's name */
    int nest = 0;
    for (size_t k = end; k-- > 0;) {
        char c = s[k];
        if (c == ')' || c == '>' || c == ']')
            nest++;
        else if (c == '(' || c == '<' || c == '[')
            nest--;
        else if (c == ' ' && nest == 0) {
            if (cxn_ends_with(s, k, "operator"))
                continue;
            *start = k + 1;
            break;
        }
    }
    return end - *start;
}
