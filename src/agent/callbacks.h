/* callbacks.h — registers the agent's JVMTI event callbacks and enables the
 * events the options ask for. */
#ifndef CALLBACKS_H
#define CALLBACKS_H

#include "../common/jp_error.h"

jp_status callbacks_install(void);

#endif
