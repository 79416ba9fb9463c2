/* options_internal.h — what the files of the options module share and no
 * one else uses: the cross-option rules the parser runs once the text is
 * read (options_rules.c). */
#ifndef OPTIONS_INTERNAL_H
#define OPTIONS_INTERNAL_H

#include "options.h"

/* The defaults that follow from other options (the profile when none is
 * named, format= for a heap dump, file= after format=), then the rules on
 * options that cannot go together or have no use alone. On a refusal returns
 * JP_ERR_ARG with the one-line message in err. */
jp_status options_rules_apply(agent_options *o, char *err, size_t errlen);

#endif
