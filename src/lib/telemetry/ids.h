/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The 128-bit ids of a telemetry run: systemd's app-specific machine id
 * for the host, random ones otherwise, as 32 hex digits or a UUID.
 */
#ifndef BPFTUNE_TELEMETRY_IDS_H
#define BPFTUNE_TELEMETRY_IDS_H

#include <stdint.h>

#define TM_ID_HEX_LEN	33	/* 32 hex digits and a NUL */
#define TM_ID_UUID_LEN	37	/* 8-4-4-4-12 and a NUL */

/* 32 lowercase hex digits */
void tm_id_hex(const uint8_t id[16], char out[TM_ID_HEX_LEN]);
/* the 8-4-4-4-12 form */
void tm_id_uuid(const uint8_t id[16], char out[TM_ID_UUID_LEN]);
/* mark @id as a random (version 4, RFC 4122 variant) UUID */
void tm_id_make_v4(uint8_t id[16]);
/* a random version 4 id; 0 or -errno */
int tm_id_random(uint8_t id[16]);
/*
 * systemd's machine id for the application @app (an HMAC of
 * /etc/machine-id, never the machine id itself): 0, or -errno when there
 * is no machine id or no libsystemd.  libsystemd is loaded for this one
 * call and unloaded after it: linked to the daemon, it and the libraries
 * it needs (libgcrypt, liblzma, libzstd, liblz4, libgpg-error) stayed
 * resident, about 1 MB, for a value read once per run.
 */
int tm_id_app_machine(const uint8_t app[16], uint8_t id[16]);

#endif
