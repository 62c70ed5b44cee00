# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# The protocol core (proto.h): pure C, built into siw.ko (Kbuild) and for
# the host (selftests/host, selftests/fuzz, userspace) from this one list.
SIW_PROTO_SRCS := mpa.c fpdu.c ddp_check.c rdmap.c term.c rx_stream.c \
	rx_decide.c
SIW_PROTO_HDRS := proto.h proto_platform.h rx_decide.h
