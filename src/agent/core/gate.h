/* gate.h — counts JVMTI callbacks in flight so VM death can wait for them to
 * leave before the final dump, and turns new arrivals away once the VM is
 * dying or while a session stops (session.c). Usage: if (!gate_enter()) return; ...; gate_leave(); */
#ifndef GATE_H
#define GATE_H

#include <stdbool.h>

bool gate_enter(void);
void gate_leave(void);
/* Refuses new callbacks and waits (up to timeout_ms) for those in flight. */
bool gate_close(unsigned timeout_ms);
/* Lets callbacks in again after gate_close (a session stopped, the VM lives on). */
void gate_reopen(void);

#endif
