#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1200
# The traffic of 70-traffic.sh again, on loopback in the initial namespace.
SIW_TOPO=lo exec bash "$(dirname "$0")/70-traffic.sh"
