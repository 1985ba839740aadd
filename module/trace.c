// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact tracepoint definitions (the events are declared in trace.h).
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
