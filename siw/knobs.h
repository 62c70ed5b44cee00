/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * The MPA connection knobs, each once (knobs.c makes of this list the
 * struct's fields, the defaults, the valid ranges, the module parameters
 * mpa_NAME and the sysfs files mpa/NAME):
 *
 *   X(NAME, default, min, max, "module parameter description")
 *
 * Why the defaults are what they are:
 *   p2p_accept 1     iw_cxgb4 asks for peer-to-peer mode by default; answer it.
 *   gso 1            only a peer that sets the same flag gets large FPDUs,
 *                    so a hardware RNIC sees nothing new (protocol.rst).
 *   rfc7306 0        once on, a peer alone decides that a kernel QP
 *                    receives Immediate Data, whether or not its ULP knows
 *                    what that is; the administrator of a device whose
 *                    kernel users post RFC 7306's verbs turns it on
 *                    (security.rst). On, only a peer that sets the same
 *                    flag (siw) gets them; with any other the verbs fail
 *                    locally.
 *   user_timeout_ms  a peer that keeps its receive window closed (or stops
 *                    acknowledging) fails the connection after a minute,
 *                    instead of holding the QP's transmit for as long as it
 *                    answers TCP's probes.
 *   first_fpdu_wait_ms  a responder without peer-to-peer mode holds its
 *                    first FPDU until the initiator's has arrived (RFC 5044
 *                    section 7.1.2, rule 4), for at most this long: an
 *                    application whose server speaks first then starts
 *                    late instead of never.
 */
#ifndef SIW_KNOBS_H
#define SIW_KNOBS_H

/* When revision 1 connections exchange IRD/ORD as [MS-SMBD] 6.1 says. */
enum {
	SIW_LEGACY_NEVER,
	SIW_LEGACY_SMBD_PORT,	/* to or from TCP port 5445, SMB Direct's */
	SIW_LEGACY_ALWAYS,
};
#define SIW_SMBD_PORT	5445

#define SIW_KNOBS(X)							\
	X(rev, 2, 1, 2,							\
	  "MPA revision new devices speak: 1, or 2 (RFC 6581, default); per device: mpa/rev") \
	X(crc, 0, 0, 2,							\
	  "MPA CRC of new devices: 0 do not ask (a peer's request is honoured, default), 1 offer, 2 require; per device: mpa/crc") \
	X(p2p, 0, 0, 1,							\
	  "As initiator, ask for peer-to-peer mode with a ready-to-receive (RTR) message (MPA revision 2): 0 no (default), 1 yes; per device: mpa/p2p") \
	X(p2p_accept, 1, 0, 1,						\
	  "As responder, answer an initiator's peer-to-peer request: 1 yes, with an RTR type from mpa_rtr (default), 0 reply without it; per device: mpa/p2p_accept") \
	X(rtr, SIW_RTR_ALL, 1, SIW_RTR_ALL,				\
	  "RTR messages offered and accepted in peer-to-peer mode, a mask: 1 zero-length Send, 2 zero-length RDMA Write, 4 zero-length RDMA Read (default 7); per device: mpa/rtr") \
	X(timeout_ms, 10000, 100, 600000,				\
	  "Time a TCP connect plus MPA exchange may take, in ms (100-600000, default 10000); per device: mpa/timeout_ms") \
	X(gso, 1, 0, 1,							\
	  "FPDUs as large as a GSO packet when the peer says it takes them (upstream siw's flag, MPA revision 2): 0 off, 1 on (default); per device: mpa/gso") \
	X(legacy_ird_ord, SIW_LEGACY_NEVER, SIW_LEGACY_NEVER,		\
	  SIW_LEGACY_ALWAYS,						\
	  "MPA revision 1: IRD and ORD as two 32-bit words first in the private data, as SMB Direct's iWARP peers send them ([MS-SMBD] 6.1): 0 never (default), 1 on TCP port 5445, 2 always; per device: mpa/legacy_ird_ord") \
	X(rfc7306, 0, 0, 1,						\
	  "Immediate Data and atomics (RFC 7306) with peers that say they take them, siw only (MPA revision 2), for kernel QPs whose users post them: 0 off (default), 1 on; per device: mpa/rfc7306") \
	X(user_timeout_ms, 60000, 0, 3600000,				\
	  "TCP_USER_TIMEOUT of established connections, in ms: sent data unacknowledged, or the peer's receive window closed, for that long fails the connection (0-3600000, 0: TCP's own limits, which a peer answering window probes never meets; default 60000); per device: mpa/user_timeout_ms") \
	X(first_fpdu_wait_ms, 500, 0, 60000,				\
	  "As responder without peer-to-peer mode, how long the QP's first FPDU waits for the initiator's (RFC 5044 section 7.1.2, rule 4), in ms (0-60000, 0: it does not wait; default 500); per device: mpa/first_fpdu_wait_ms")

/*
 * A device's knobs: module parameters give a new device its copy, sysfs
 * changes it. Read with READ_ONCE, each on its own: a connection copies
 * them once when it starts (siw_knobs_get).
 */
#define SIW_KNOB_FIELD(name, def, lo, hi, desc)	int mpa_##name;
struct siw_knobs {
	SIW_KNOBS(SIW_KNOB_FIELD)
};
#undef SIW_KNOB_FIELD

#endif /* SIW_KNOBS_H */
