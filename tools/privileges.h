/* -Z USER: give up root for USER once the capture device is open (its groups, group and user ids). */
#ifndef RT_TOOLS_PRIVILEGES_H
#define RT_TOOLS_PRIVILEGES_H

#include <sys/types.h>

struct rt_user {
	char name[64];
	uid_t uid;
	gid_t gid; /* the user's login group */
};

/* Look USER up in the user database. Returns 0, -ENOENT when there is no such user, or -errno; errbuf says why. */
int rt_user_lookup(const char *name, struct rt_user *u, char *errbuf);

/*
 * Become u: its supplementary groups, group and user ids (real, effective
 * and saved), as tcpdump -Z does; root's capabilities go with root. Needs
 * root unless u is who we already are (then nothing changes). Checks that
 * root cannot be taken back. Returns 0 or a negative errno with errbuf set.
 */
int rt_drop_privileges(const struct rt_user *u, char *errbuf);

#endif
