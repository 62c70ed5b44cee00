// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/* The one place that instantiates siw's tracepoints (trace.h). */
#define CREATE_TRACE_POINTS
#include "trace.h"
