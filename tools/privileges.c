/* -Z USER: give up root for USER once the capture device is open (its groups, group and user ids). */
#include "tools/privileges.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/errbuf.h"

int rt_user_lookup(const char *name, struct rt_user *u, char *errbuf)
{
	struct passwd *pw;

	if (strlen(name) >= sizeof(u->name))
		return rt_errmsg(errbuf, ENAMETOOLONG, "user name '%.32s...' is too long", name);
	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		return errno ? rt_errorf(errbuf, errno, "cannot look user '%s' up", name)
		             : rt_errmsg(errbuf, ENOENT, "no user '%s'", name);
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return 0;
}

int rt_drop_privileges(const struct rt_user *u, char *errbuf)
{
	if (getuid() == u->uid && geteuid() == u->uid && getgid() == u->gid && getegid() == u->gid)
		return 0;
	if (geteuid() != 0)
		return rt_errmsg(errbuf, EPERM, "cannot become user '%s': only root can (-Z)",
		                 u->name);
	if (initgroups(u->name, u->gid) < 0)
		return rt_errorf(errbuf, errno, "cannot take the groups of user '%s'", u->name);
	if (setresgid(u->gid, u->gid, u->gid) < 0)
		return rt_errorf(errbuf, errno, "cannot take group id %u of user '%s'",
		                 (unsigned)u->gid, u->name);
	if (setresuid(u->uid, u->uid, u->uid) < 0)
		return rt_errorf(errbuf, errno, "cannot become user '%s'", u->name);
	/* root must be gone for good (not for a user that is root itself) */
	if (u->uid != 0 && (setuid(0) == 0 || geteuid() == 0))
		return rt_errmsg(errbuf, EPERM, "user '%s' could take root back", u->name);
	return 0;
}
