// SPDX-License-Identifier: GPL-2.0
/*
 * The executor: runs one program against /dev/xqp/uverbsN.
 *
 * Processes: the manager starts one fork server (before it holds a corpus,
 * so it stays small); for every program the fork server forks a fresh
 * executor, actor 0, which runs the program and exits; nothing of one
 * program's process state reaches the next. Actors 1..3 are forked from
 * actor 0 by FZ_FORK (so they inherit its files, which they may not write:
 * EACCES, and open their own; one FZ_FORK in four drops the new actor to
 * uid 65534, so the unprivileged paths run too) and run their ops in
 * lock-step, sent over a pipe. QP and SRQ numbers and MR keys, with the
 * device, PD and XRC domain they belong to, go to a shared page, so any
 * actor can name another's objects. FZ_RACE runs the next two ops of actor
 * 0 at once, in two threads.
 *
 * The data path: FZ_SETUP builds a PD, a CQ, an MR and a pair of QPs of one
 * type (RC, UC, UD with address handles, XRC INI -> XRC TGT with an XRC
 * SRQ, RC on an SRQ, RC across files and devices), brings both to RTS
 * pointed at each other and posts receives; FZ_CONNECT does the MODIFY_QP
 * sequence for two QPs of earlier responses. POST_SEND, POST_RECV and
 * POST_SRQ_RECV build their SGEs inside an MR of the QP's PD (a byte picks
 * the MR, another the offsets and lengths; a few values go past its end,
 * before it or use a bad key) and RDMA and atomics address a published MR of
 * the peer's device and PD, so that work requests execute and complete, well
 * or with the errors a byte asks for.
 *
 * Time: the fork server and the executors account each phase and each op
 * kind in the shared page (fz_prof_report()).
 */
#include "exec.h"

struct proc procs[FZ_MAX_PROCS];
int nprocs = 1;
int proc_index;		/* in a fork server and its processes */
struct fz_prof_page *prof;
struct fz_shared *shared;	/* in a fork server: its proc's */
uint8_t *mrbuf;		/* BUF_PAGES pages, same address in every actor */
__thread int fail_nth_fd = -1;
int nl_family;		/* the xqp_res family's id; 0: not registered */
int fz_verbose;
const struct fz_op clean_op;	/* the sub-commands of composite ops */

/* ---- time ---------------------------------------------------------------- */

double fz_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void prof_add(struct prof *p, double since)
{
	double d = fz_now() - since;

	__atomic_add_fetch(&p->ns, (uint64_t)(d > 0 ? d * 1e9 : 0), __ATOMIC_RELAXED);
	__atomic_add_fetch(&p->n, 1, __ATOMIC_RELAXED);
}

void fz_prof(int phase, double since)
{
	if (prof && phase >= 0 && phase < FZ_PHASES)
		prof_add(&prof->phase[phase], since);
}

void fz_prof_report(void)
{
	static const char *const names[FZ_PHASES] = {
		"generate", "exec", "collect", "kmsg", "output", "fork", "ops", "teardown", "reap",
	};
	char line[192];
	int i, k;

	if (!prof)
		return;
	for (i = 0; i < FZ_PHASES; i++) {
		const struct prof *p = &prof->phase[i];

		k = snprintf(line, sizeof(line), "FUZZ-PROF phase %s seconds=%.2f calls=%llu mean_us=%.0f\n",
			     names[i], p->ns / 1e9, (unsigned long long)p->n,
			     p->n ? p->ns / 1e3 / p->n : 0.0);
		(void)!write(1, line, (size_t)k);
	}
	for (i = 0; i < FZ_OP_COUNT; i++) {
		const struct prof *p = &prof->kind[i];

		if (!p->n)
			continue;
		k = snprintf(line, sizeof(line), "FUZZ-PROF op %s seconds=%.2f calls=%llu mean_us=%.0f\n",
			     fz_kind_name[i], p->ns / 1e9, (unsigned long long)p->n,
			     p->ns / 1e3 / p->n);
		(void)!write(1, line, (size_t)k);
	}
}

void count(void)
{
	__atomic_add_fetch(&shared->commands, 1, __ATOMIC_RELAXED);
}

/*
 * A write() of header + body; 0 or the errno. A header that claims more
 * response words than the caller's response holds makes the device write
 * (and zero, as Linux does) that many bytes: the response then goes to a
 * scratch buffer that big, and the caller's part is copied back, so the
 * fuzzer's own stack is never what the kernel overwrites.
 */
int cmd(int fd, uint32_t command, void *body, size_t len, uint32_t out_words,
	const struct fz_op *op)
{
	static __thread uint64_t scratch[256 / 2 + 1];	/* 255 words and more */
	uint8_t buf[8 + 1024];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command, .in_words = (uint16_t)((8 + len) / 4),
		.out_words = (uint16_t)out_words,
	};
	size_t total = 8 + len;
	int failing = (op->file & 0x80) && fail_nth_fd >= 0, ret;
	uint64_t resp = 0;	/* the caller's response, when redirected */

	if (len > 1024)
		return E2BIG;
	/* now and then a header or a body byte goes wrong */
	if (op->a[12] >= 0xf8) {
		switch (op->a[12] & 3) {
		case 0: hdr.in_words = (uint16_t)(hdr.in_words + 1 - (op->a[11] & 3)); break;
		case 1:
			hdr.out_words = op->a[11];
			/*
			 * Every command with a response has its address first.
			 * One below the lowest page a process can map (an op's
			 * deliberate EFAULT: 8, 16) stays: the kernel refuses
			 * it and writes nothing, and nothing is copied back.
			 */
			if (hdr.out_words > out_words && out_words && len >= 8) {
				memcpy(&resp, body, 8);
				if (resp < 4096)
					resp = 0;
				else
					memset(scratch, 0, sizeof(scratch));
			}
			break;
		case 2: hdr.command |= (uint32_t)op->a[11] << 24; break;
		default: total = 8 + (len ? op->a[11] % len : 0); break;
		}
	}
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + 8, body, len);
	if (resp) {
		uint64_t to = (uintptr_t)scratch;

		memcpy(buf + 8, &to, 8);
	}
	/*
	 * A body bit flipped, never in the response address of a command that
	 * has a response: the device would write it into the fuzzer's stack.
	 */
	if (op->a[12] >= 0xf0 && op->a[12] < 0xf8 && len > 8 * !!out_words) {
		size_t skip = out_words ? 8 : 0;

		buf[8 + skip + op->a[11] % (len - skip)] ^= (uint8_t)(1u << (op->a[10] & 7));
	}
	if (failing) {
		char n[8];
		int k = snprintf(n, sizeof(n), "%u", 1 + op->a[9] % 8u);

		if (pwrite(fail_nth_fd, n, (size_t)k, 0) < 0)
			failing = 0;
	}
	count();
	ret = write(fd, buf, total) < 0 ? errno : 0;
	if (failing)
		(void)!pwrite(fail_nth_fd, "0", 1, 0);
	if (resp)
		memcpy((void *)(uintptr_t)resp, scratch, (size_t)out_words * 4);
	return ret;
}

/* ---- actors and programs ------------------------------------------------- */

struct child {
	pid_t pid;
	int to, from;
};

static void actor_loop(struct actor *ac, int in, int out)
{
	struct fz_op op;

	while (read(in, &op, sizeof(op)) == (ssize_t)sizeof(op)) {
		uint8_t done = (uint8_t)run_op_timed(ac, &op);

		if (fz_verbose)
			printf("  actor %d: %s file %d -> %s\n", op.actor % FZ_ACTORS,
			       fz_kind_name[op.kind % FZ_OP_COUNT], (op.file & 0x7f) % FZ_FILES,
			       done ? strerror(done) : "ok");

		if (write(out, &done, 1) != 1)
			break;
	}
	_exit(0);
}

/* to uid/gid 65534, after the privileged setup of the actor */
static void drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		fprintf(stderr, "xqp-fuzz: dropping privileges: %s\n", strerror(errno));
}

static void fork_actor(struct actor *ac, struct child *c, int slot, int unprivileged)
{
	int to[2], from[2];

	if (pipe2(to, O_CLOEXEC))
		return;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		return;
	}
	count();
	c->pid = fork();
	if (c->pid == 0) {
		close(to[1]);
		close(from[0]);
		fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
		fz_cover_enable(proc_index * FZ_ACTORS + slot);
		/* its own netlink socket: its own credentials */
		if (ac->nl_fd >= 0)
			close(ac->nl_fd);
		ac->nl_fd = -1;
		if (unprivileged)
			drop_privileges();
		actor_loop(ac, to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	if (c->pid < 0) {
		close(to[1]);
		close(from[0]);
		c->pid = 0;
		return;
	}
	__atomic_store_n(&shared->actor_pid[slot], c->pid, __ATOMIC_RELAXED);
	c->to = to[1];
	c->from = from[0];
}

static void kill_actor(struct child *c, int slot)
{
	if (!c->pid)
		return;
	count();
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	__atomic_store_n(&shared->actor_pid[slot], 0, __ATOMIC_RELAXED);
	close(c->to);
	close(c->from);
	c->pid = 0;
}

static void send_op(struct child *c, int slot, const struct fz_op *op)
{
	uint8_t done;

	if (!c->pid)
		return;
	if (write(c->to, op, sizeof(*op)) != (ssize_t)sizeof(*op) ||
	    read(c->from, &done, 1) != 1)
		kill_actor(c, slot);
}

struct race {
	struct actor copy;
	const struct fz_op *op;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;

	run_op_timed(&r->copy, r->op);
	return NULL;
}

static int has_comp(const struct ufile *f, int fd)
{
	int i;

	for (i = 0; i < f->ncomp; i++)
		if (f->comp[i] == fd)
			return 1;
	return 0;
}

/* the channels the race thread closed are gone from m, those it made are added */
static void merge_comps(struct ufile *m, const struct ufile *b, const struct ufile *c)
{
	int i;

	for (i = 0; i < m->ncomp; i++)
		if (has_comp(b, m->comp[i]) && !has_comp(c, m->comp[i]))
			m->comp[i--] = m->comp[--m->ncomp];
	for (i = 0; i < c->ncomp; i++)
		if (!has_comp(b, c->comp[i]) && !has_comp(m, c->comp[i]) && m->ncomp < MAX_COMP)
			m->comp[m->ncomp++] = c->comp[i];
}

/* a descriptor the race thread changed and the main thread did not */
static void merge_fd(int *m, int b, int c)
{
	if (*m == b && c != b)
		*m = c;
}

/*
 * After FZ_RACE: the race thread ran its op on a copy of the actor, so what
 * it did to descriptors (closed or opened a file, an async fd, a completion
 * channel, an XRC domain's file, the netlink socket) is carried into the
 * actor. Left in the copy, a closed descriptor's number would still be named
 * by the actor after the kernel reused it for another file: read_async then
 * read a blocking netlink socket for ever (tests/fuzz/crashes/hang-ea62*).
 * Objects the race thread made on a file that stays open are not carried;
 * they go with the file. `before` is the actor as the race began.
 */
static void merge_race(struct actor *ac, const struct actor *before, const struct actor *copy)
{
	int k;

	for (k = 0; k < FZ_FILES; k++) {
		struct ufile *m = &ac->f[k];
		const struct ufile *b = &before->f[k], *c = &copy->f[k];

		if (c->fd != b->fd) {
			if (m->fd == b->fd)
				*m = *c;	/* closed or reopened by the race thread */
			continue;
		}
		if (c->async_fd != b->async_fd && m->async_fd == b->async_fd)
			m->ctx = c->ctx;
		merge_fd(&m->async_fd, b->async_fd, c->async_fd);
		merge_comps(m, b, c);
	}
	for (k = 0; k < 2; k++)
		merge_fd(&ac->xrcd_fd[k], before->xrcd_fd[k], copy->xrcd_fd[k]);
	merge_fd(&ac->nl_fd, before->nl_fd, copy->nl_fd);
}

/*
 * One program in this (fresh) process, then everything it left is torn
 * down (actors killed, files closed: the device's file teardown runs with
 * whatever objects remain).
 */
static void run_prog(struct actor *ac, const struct fz_prog *p)
{
	struct child kids[FZ_ACTORS] = { 0 };
	double t0, start = fz_now();
	int i, k;

	for (k = 0; k < FZ_FILES; k++)
		reset_file(&ac->f[k]);
	ac->xrcd_fd[0] = ac->xrcd_fd[1] = -1;
	ac->nl_fd = -1;
	for (i = 0; i < p->n; i++) {
		const struct fz_op *op = &p->op[i];
		int actor = op->actor % FZ_ACTORS;

		cur_index = i;
		t0 = fz_now();
		switch (op->kind % FZ_OP_COUNT) {
		case FZ_FORK:
			k = 1 + op->a[0] % (FZ_ACTORS - 1);
			if (!kids[k].pid)
				fork_actor(ac, &kids[k], k, op->a[1] % 4 == 3);
			prof_add(&prof->kind[FZ_FORK], t0);
			continue;
		case FZ_KILL:
			k = 1 + op->a[0] % (FZ_ACTORS - 1);
			kill_actor(&kids[k], k);
			prof_add(&prof->kind[FZ_KILL], t0);
			continue;
		case FZ_RACE:
			if (i + 2 < p->n) {
				static struct race r;
				static struct actor before;
				pthread_t t;

				r.copy = before = *ac;
				r.op = &p->op[i + 1];
				if (pthread_create(&t, NULL, race_thread, &r) == 0) {
					run_op_timed(ac, &p->op[i + 2]);
					pthread_join(t, NULL);
					merge_race(ac, &before, &r.copy);
					i += 2;
				}
			}
			prof_add(&prof->kind[FZ_RACE], t0);
			continue;
		}
		if (actor == 0) {
			int err = run_op_timed(ac, op);

			if (fz_verbose)
				printf("  actor 0: %s file %d -> %s\n", fz_kind_name[op->kind % FZ_OP_COUNT],
				       (op->file & 0x7f) % FZ_FILES, err ? strerror(err) : "ok");
		} else {
			send_op(&kids[actor], actor, op);
		}
	}
	fz_prof(FZ_PH_OPS, start);
	t0 = fz_now();
	for (k = 1; k < FZ_ACTORS; k++)
		kill_actor(&kids[k], k);
	for (k = 0; k < FZ_FILES; k++)
		close_file(&ac->f[k], 1);
	for (k = 0; k < 2; k++)
		if (ac->xrcd_fd[k] >= 0)
			close(ac->xrcd_fd[k]);
	if (ac->nl_fd >= 0)
		close(ac->nl_fd);
	fz_prof(FZ_PH_TEARDOWN, t0);
}

/* The executor: actor 0 of one program, in a process of its own. */
static void executor(const struct fz_prog *p)
{
	static struct actor ac;

	shared->actor_pid[0] = getpid();
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	fz_cover_enable(proc_index * FZ_ACTORS);
	fz_prof(FZ_PH_FORK, shared->t_fork);
	run_prog(&ac, p);
	shared->t_done = fz_now();
	_exit(0);
}

/*
 * The fork server: programs from `in`; for each, a fresh executor, and one
 * byte to `out` when it is gone (0, or 1: it died of a signal). It reaps
 * the actors an executor that died left behind (it is their subreaper).
 */
/*
 * A fault in an executor or actor is a defect of this program, or of the
 * kernel writing where it must not: say where it was, then die of it.
 */
static void on_fault(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint64_t ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP], w0 = 0, w1 = 0;
	char line[256];
	int k;

	if (sp && !(sp & 7)) {	/* the return address a call to a bad pointer left */
		w0 = ((uint64_t *)sp)[0];
		w1 = ((uint64_t *)sp)[1];
	}
	k = snprintf(line, sizeof(line),
		     "xqp-fuzz: pid %d: signal %d at %p, ip %#llx sp %#llx [sp] %#llx %#llx;"
		     " op %s, index %d\n", (int)getpid(), sig, si->si_addr,
		     (unsigned long long)ip, (unsigned long long)sp, (unsigned long long)w0,
		     (unsigned long long)w1, cur_kind >= 0 ? fz_kind_name[cur_kind] : "-",
		     cur_index);
	(void)!write(2, line, (size_t)k);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_alarm(int sig)
{
	(void)sig;	/* only to interrupt a blocking read (FZ_AUX_FD) */
}

static void fork_server(int in, int out)
{
	static struct fz_prog p;
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK };
	struct sigaction alarm = { .sa_handler = on_alarm };	/* no SA_RESTART */

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGALRM, &alarm, NULL);
	signal(SIGIO, SIG_IGN);		/* O_ASYNC event files signal their owner */
	setpgid(0, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	nl_family = nl_resolve();
	for (;;) {
		uint8_t done = 0;
		pid_t pid;
		int st = 0, k;

		if (read(in, &p, sizeof(p)) != (ssize_t)sizeof(p))
			_exit(0);
		memset(shared, 0, offsetof(struct fz_shared, commands));
		shared->t_fork = fz_now();
		pid = fork();
		if (pid == 0)
			executor(&p);
		if (pid < 0 || waitpid(pid, &st, 0) != pid) {
			done = 1;
		} else {
			if (WIFSIGNALED(st))
				done = 1;
			if (shared->t_done > 0)
				fz_prof(FZ_PH_REAP, shared->t_done);
		}
		for (k = 1; k < FZ_ACTORS; k++)
			if (shared->actor_pid[k] > 0)
				kill(shared->actor_pid[k], SIGKILL);
		while (waitpid(-1, NULL, __WALL) > 0)
			;
		if (write(out, &done, 1) != 1)
			_exit(0);
	}
}

int fz_exec_init(int n)
{
	int i;

	nprocs = n < 1 ? 1 : n > FZ_MAX_PROCS ? FZ_MAX_PROCS : n;
	prof = mmap(NULL, sizeof(*prof), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		    -1, 0);
	if (prof == MAP_FAILED)
		return -1;
	for (i = 0; i < nprocs; i++) {
		struct proc *pr = &procs[i];

		pr->shared = mmap(NULL, sizeof(*pr->shared), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		pr->mrbuf = mmap(NULL, BUF_PAGES * 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (pr->shared == MAP_FAILED || pr->mrbuf == MAP_FAILED)
			return -1;
	}
	if (fault_knobs_set())
		printf("xqp-fuzz: cannot set the fault-injection knobs (%s): failed allocations reach GFP_ATOMIC ones only\n",
		       strerror(errno));
	/* a write to a dead actor's pipe fails, it does not kill (inherited) */
	signal(SIGPIPE, SIG_IGN);
	inject_discover();
	link_restore(~0u);	/* the veth pair FZ_LINK works on */
	printf("xqp-fuzz: %d soft device ops can fail (inject); %d program(s) at once\n",
	       n_soft_ops, nprocs);
	return 0;
}

/* A fork server is restarted after a hang or its death. */
static void exec_stop(struct proc *pr)
{
	if (!pr->pid)
		return;
	kill(-pr->pid, SIGKILL);
	kill(pr->pid, SIGKILL);
	waitpid(pr->pid, NULL, 0);
	/* actors orphaned by it come to us (PR_SET_CHILD_SUBREAPER) */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	close(pr->in);
	close(pr->out);
	pr->pid = 0;
}

static int exec_start(struct proc *pr)
{
	int to[2], from[2];

	if (pipe2(to, O_CLOEXEC))
		return -1;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	pr->pid = fork();
	if (pr->pid == 0) {
		close(to[1]);
		close(from[0]);
		proc_index = (int)(pr - procs);
		shared = pr->shared;
		mrbuf = pr->mrbuf;
		fork_server(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	if (pr->pid < 0) {
		pr->pid = 0;
		close(to[1]);
		close(from[0]);
		return -1;
	}
	setpgid(pr->pid, pr->pid);
	pr->in = to[1];
	pr->out = from[0];
	return 0;
}

int fz_exec_submit(int i, const struct fz_prog *p)
{
	struct proc *pr = &procs[i];

	if (i < 0 || i >= nprocs || pr->busy)
		return -1;
	if (!pr->pid && exec_start(pr))
		return -1;
	pr->before = pr->shared->commands;
	pr->t_start = fz_now();
	if (write(pr->in, p, sizeof(*p)) != (ssize_t)sizeof(*p)) {
		exec_stop(pr);
		return -1;
	}
	pr->busy = 1;
	return 0;
}

#define HANG_SECONDS 20

/* a line of a /proc file, newline dropped; "" when it cannot be read */
static void proc_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * What each thread of a hung program waits in: its system call, the file
 * its first argument names (when it names one) and its kernel wait
 * channel, one FUZZ-HANG line each, before the processes are killed.
 */
static void hang_report(const struct proc *pr)
{
	char path[96], sys[160], wchan[64], target[128];
	struct dirent *d;
	int k;

	for (k = 0; k < FZ_ACTORS; k++) {
		pid_t pid = pr->shared->actor_pid[k];
		DIR *dir;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		dir = pid > 0 ? opendir(path) : NULL;
		while (dir && (d = readdir(dir))) {
			int tid = atoi(d->d_name);
			long nr = -1, arg = -1;
			ssize_t n = -1;

			if (tid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, tid);
			proc_line(path, sys, sizeof(sys));
			snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", (int)pid, tid);
			proc_line(path, wchan, sizeof(wchan));
			if (sscanf(sys, "%ld %lx", &nr, &arg) == 2 && arg >= 0 && arg < 4096) {
				snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)pid, arg);
				n = readlink(path, target, sizeof(target) - 1);
			}
			target[n > 0 ? n : 0] = 0;
			printf("FUZZ-HANG actor %d tid %d syscall %ld fd %ld -> %s wchan %s\n", k,
			       tid, nr, arg, n > 0 ? target : "-", wchan[0] ? wchan : "-");
		}
		if (dir)
			closedir(dir);
	}
	fflush(stdout);
}

int fz_exec_wait(int *which, long *commands)
{
	struct pollfd pfd[FZ_MAX_PROCS];
	int idx[FZ_MAX_PROCS], n, i, r, ret = 0;
	struct proc *pr = NULL;
	uint8_t done;

	for (;;) {
		double first = 0;

		for (n = 0, i = 0; i < nprocs; i++) {
			if (!procs[i].busy)
				continue;
			if (!n || procs[i].t_start < first)
				first = procs[i].t_start;
			pfd[n] = (struct pollfd){ .fd = procs[i].out, .events = POLLIN };
			idx[n++] = i;
		}
		if (!n)
			return -2;
		r = poll(pfd, (nfds_t)n, (int)((first + HANG_SECONDS - fz_now()) * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r > 0) {
			for (i = 0; i < n && !pr; i++)
				if (pfd[i].revents)
					pr = &procs[idx[i]];
			if (read(pr->out, &done, 1) != 1)
				exec_stop(pr);	/* the fork server died: the log tells */
			else if (done)
				ret = 1;	/* the executor died of a signal (an oops?) */
			break;
		}
		/* the oldest program that ran past its time hung */
		for (i = 0; i < n && !pr; i++)
			if (fz_now() - procs[idx[i]].t_start >= HANG_SECONDS)
				pr = &procs[idx[i]];
		if (pr) {
			ret = -1;
			hang_report(pr);
			exec_stop(pr);
			break;
		}
	}
	pr->busy = 0;
	*which = (int)(pr - procs);
	if (pr->shared->injected)
		exec_disarm();
	if (pr->shared->hotplugged)
		hotplug_write("add 1");	/* EEXIST when it is there */
	if (pr->shared->linked)
		link_restore(pr->shared->linked);
	*commands += pr->shared->commands - pr->before;
	fz_prof(FZ_PH_EXEC, pr->t_start);
	return ret;
}

int fz_exec(const struct fz_prog *p, long *commands)
{
	int which;

	if (fz_exec_submit(0, p))
		return 0;
	return fz_exec_wait(&which, commands);
}
