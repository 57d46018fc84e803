# loopforge: the zygote (zygote_linux.go says why and what it isolates).
#
# One pre-started Python, inside its own bubblewrap sandbox with every
# layer, that forks a child per execution. It never runs the code itself:
# each child leaves the zygote's user, PID and IPC namespaces, restricts
# itself (Landlock, capabilities, seccomp, rlimits) and only then runs the
# code, as PID 2 of a PID namespace of its own.
#
# fd 4 is a SOCK_SEQPACKET socket to loopforge. Messages are JSON; a
# "run" comes with its descriptors (code, stdin, stdout, stderr, then the
# cgroup.procs files to join). The zygote answers "ready" once, then per
# run "started" (the code is about to run) and "exit" (the raw wait status,
# once every process of the run is gone) or "error" (nothing of the code
# ran). Children talk to the zygote only before the code runs, through a
# socket only they hold; what they send is checked.
import ctypes
import errno
import gc
import json
import os
import select
import signal
import socket
import struct
import sys

# What student programs import most, so children start with it loaded.
import atexit  # noqa: F401
import collections  # noqa: F401
import dataclasses  # noqa: F401
import datetime  # noqa: F401
import functools  # noqa: F401
import io
import itertools  # noqa: F401
import math  # noqa: F401
import random  # noqa: F401
import re  # noqa: F401
import resource
import string  # noqa: F401
import tempfile
import threading
import time  # noqa: F401
import traceback
import types
import typing  # noqa: F401

SOCK_FD = 4
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
PR_SET_PDEATHSIG = 1
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
LANDLOCK_RULE_PATH_BENEATH = 1
O_PATH = getattr(os, "O_PATH", 0o10000000)


def check(ret, what):
    if ret < 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))
    return ret


def prctl(option, arg2=0, arg3=0, arg4=0, arg5=0):
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return check(libc.prctl(option, arg2, arg3, arg4, arg5), "prctl %d" % option)


class RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("access", ctypes.c_uint64), ("fd", ctypes.c_int32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


class Config:
    """What loopforge sends once: the children's layers."""

    def __init__(self, raw):
        c = json.loads(raw)
        self.abi = int(c["abi"])
        self.handled = int(c["handled"])
        self.net = int(c["net"])
        self.scoped = int(c["scoped"])
        self.file_rights = int(c["file_rights"])
        # The read-only places, opened once (O_PATH): a child adds a rule
        # per descriptor instead of walking the paths again.
        self.rules = []
        for path, access in c["rules"]:
            try:
                fd = os.open(path, O_PATH | os.O_CLOEXEC)
            except (FileNotFoundError, PermissionError):
                continue
            if not os.path.isdir("/proc/self/fd/%d" % fd):
                access &= self.file_rights
            access &= self.handled
            if access:
                self.rules.append(PathBeneath(access, fd))
            else:
                os.close(fd)
        self.rw = int(c["rw"])
        self.proc_self = int(c["proc_self"])
        self.filter = bytes.fromhex(c["seccomp"])
        self.hook = c.get("hook", "")
        self.figures = None
        if self.hook:  # the figure hook, compiled once
            path = os.path.join(self.hook, "sitecustomize.py")
            with open(path) as f:
                self.figures = compile(f.read(), path, "exec")


def landlock(cfg, rw):
    attr = RulesetAttr(cfg.handled, cfg.net, cfg.scoped)
    rs = check(libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), 0), "landlock_create_ruleset")
    try:
        rules = list(cfg.rules)
        own = []
        for path, access in ((rw, cfg.rw), ("/proc/self", cfg.proc_self)):
            fd = os.open(path, O_PATH | os.O_CLOEXEC)
            own.append(fd)
            rules.append(PathBeneath(access & cfg.handled, fd))
        for rule in rules:
            check(libc.syscall(SYS_LANDLOCK_ADD_RULE, rs, LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0), "landlock_add_rule")
        for fd in own:
            os.close(fd)
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, rs, 0), "landlock_restrict_self")
    finally:
        os.close(rs)


def drop_caps():
    # The new user namespace gave this process every capability in it;
    # the code gets none.
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    hdr = CapHeader(0x20080522, 0)
    data = (CapData * 2)()
    check(libc.capset(ctypes.byref(hdr), ctypes.byref(data)), "capset")


def seccomp(filt):
    buf = ctypes.create_string_buffer(filt, len(filt))
    prog = SockFprog(len(filt) // 8, ctypes.cast(buf, ctypes.c_void_p))
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    r = libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    check(r, "seccomp")


def stdio():
    # As python3 -I -u -X utf8 makes them: unbuffered, UTF-8.
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8", errors="surrogateescape")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="surrogateescape", write_through=True)
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True)


def run_code(code, filename, argv0):
    """Runs the program as the interpreter would run a __main__ script."""
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = __builtins__
    if filename != "<stdin>":
        main.__file__ = filename
    sys.modules["__main__"] = main
    sys.argv = [argv0]
    status = 0
    try:
        exec(compile(code, filename, "exec", dont_inherit=True), main.__dict__)
    except SystemExit as e:
        status = exit_status(e)
    except BaseException as e:  # noqa: BLE001: reported as the interpreter does
        tb = e.__traceback__
        # Leave out this frame: the traceback starts in the program.
        if tb is not None and tb.tb_frame.f_code is run_code.__code__:
            tb = tb.tb_next
        sys.stderr.write("".join(traceback.format_exception(type(e), e, tb)))
        status = 1
    try:
        threading._shutdown()  # non-daemon threads end first, as at exit
    except BaseException:  # noqa: BLE001
        pass
    try:
        atexit._run_exitfuncs()
    except SystemExit as e:
        status = exit_status(e)
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(status)


def exit_status(e):
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:  # noqa: BLE001
        pass
    return 1


def child(cfg, req, fds, report):
    """C1: the child of the zygote. Never runs the code: it leaves the
    zygote's namespaces and forks the namespace's init (C2), which forks
    the code's process (C3)."""
    code_fd, stdin_fd, out_fd, err_fd = fds[:4]
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        for fd in fds[4:]:  # the run's cgroups, before anything else
            os.write(fd, b"0")
            os.close(fd)
        check(libc.unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC), "unshare")
        go_r, go_w = os.pipe()
        pid = os.fork()
    except BaseException as e:  # noqa: BLE001
        report.sendall(b"E" + str(e).encode()[:500])
        os._exit(127)
    if pid == 0:
        os.close(go_w)
        init(req, code_fd, stdin_fd, out_fd, err_fd, go_r, report, cfg)
    for fd in (code_fd, stdin_fd, out_fd, err_fd, go_r):
        os.close(fd)
    try:
        pidfd = os.pidfd_open(pid)
        socket.send_fds(report, [b"P"], [pidfd])
        os.close(pidfd)
        os.write(go_w, b"g")
    except BaseException as e:  # noqa: BLE001
        report.sendall(b"E" + str(e).encode()[:500])
        os._exit(127)
    os.close(go_w)
    while True:
        try:
            os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    os._exit(0)


def init(req, code_fd, stdin_fd, out_fd, err_fd, go_r, report, cfg):
    """C2: PID 1 of the run's own PID namespace. Forks the code's process,
    reaps what is orphaned meanwhile, and reports the code's wait status;
    its own exit then ends the namespace. It never runs the code and holds
    nothing the code could use: the code's process is in a Landlock domain
    of its own, which can neither signal nor ptrace it."""
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.read(go_r, 1) != b"g":  # the parent died before it said go
            os._exit(127)
        os.close(go_r)
        os.setsid()
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(s, signal.SIG_DFL)
        pid = os.fork()
    except BaseException as e:  # noqa: BLE001
        report.sendall(b"E" + str(e).encode()[:500])
        os._exit(127)
    if pid == 0:
        code_process(cfg, req, code_fd, stdin_fd, out_fd, err_fd, report)
    for fd in (code_fd, stdin_fd, out_fd, err_fd):
        os.close(fd)
    while True:
        try:
            got, status = os.wait()
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(127)
        if got == pid:
            report.sendall(b"X%d" % status)
            os._exit(0)


def read_all(fd):
    try:
        os.lseek(fd, 0, os.SEEK_SET)  # a memfd loopforge wrote
    except OSError:
        pass  # a pipe
    parts = []
    while True:
        b = os.read(fd, 1 << 20)
        if not b:
            return b"".join(parts)
        parts.append(b)


def code_process(cfg, req, code_fd, stdin_fd, out_fd, err_fd, report):
    """C3: PID 2 of the run's namespace; becomes the program."""
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        for fd, target in ((stdin_fd, 0), (out_fd, 1), (err_fd, 2)):
            os.dup2(fd, target)
            os.close(fd)
        # The dispositions python3 starts with: SIGPIPE and SIGXFSZ
        # ignored (a write fails instead), SIGINT raises
        # KeyboardInterrupt, the rest default.
        for s in range(1, signal.NSIG):
            if s in (signal.SIGKILL, signal.SIGSTOP):
                continue
            try:
                signal.signal(s, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.set_wakeup_fd(-1)
        wd = req["wd"]
        os.chdir(wd)
        os.environ.clear()
        os.environ.update(kv.split("=", 1) for kv in req["env"])
        tempfile.tempdir = None
        if req.get("images") and cfg.hook:
            sys.path.insert(0, cfg.hook)
            exec(cfg.figures, {"__name__": "sitecustomize"})
        landlock(cfg, wd)
        drop_caps()
        seccomp(cfg.filter)
        for res, cur, mx in req["rlimits"]:
            hard = resource.getrlimit(res)[1]
            if hard != resource.RLIM_INFINITY and mx > hard:
                mx = hard
            resource.setrlimit(res, (min(cur, mx), mx))
        atexit._clear()
        # Everything is in place: the code comes when loopforge hands it
        # over (a prepared run) or at once (a memfd that holds it).
        code = read_all(code_fd)
        report.sendall(b"S")
        report.close()
        os.closerange(3, 1 << 16)
    except BaseException as e:  # noqa: BLE001
        try:
            report.sendall(b"E" + str(e).encode()[:500])
        finally:
            os._exit(127)
    stdio()
    gc.enable()  # the program's own objects are collected as usual
    run_code(code.decode("utf-8", "surrogateescape"), req["file"], req["argv0"])


class Run:
    def __init__(self, rid, pid, report):
        self.id, self.pid, self.report = rid, pid, report
        self.pidfd = -1  # the namespace's init (C2), from C1
        self.status = None  # the code's (C3) wait status, as C2 reported it
        self.c1 = None  # C1's own wait status once reaped
        self.err = None
        self.started = False
        self.eof = False  # the report socket is at its end
        self.gone = False  # C2 has exited (its pidfd is readable)
        self.killed = False


def main():
    sock = socket.socket(fileno=SOCK_FD)
    cfg = Config(sock.recv(1 << 20))
    # Forked children share the zygote's memory until they write to it; a
    # collection in one would touch (and so copy) every object. The
    # objects so far are frozen out of collections, and the zygote and
    # its helper processes do without.
    gc.disable()
    gc.freeze()
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    runs = {}  # by id
    by_pid = {}  # C1's pid
    by_report = {}  # the report socket's fd
    by_pidfd = {}  # C2's pidfd, until it is readable

    def send(msg):
        sock.send(json.dumps(msg).encode())

    def settle(run):
        # Done once C1 is reaped, its report socket is at its end and C2
        # (PID 1 of the run's namespace: the last of it to go) is gone.
        if run.c1 is None or not run.eof or (run.pidfd >= 0 and not run.gone):
            return
        del runs[run.id]
        del by_pid[run.pid]
        run.report.close()
        if run.pidfd >= 0:
            by_pidfd.pop(run.pidfd, None)
            os.close(run.pidfd)
        if not run.started:
            send({"id": run.id, "ev": "error", "error": run.err or "the run's process ended before its code started"})
        elif run.status is not None:
            send({"id": run.id, "ev": "exit", "status": run.status})
        else:  # C1 was killed (by loopforge, or with the cgroup)
            send({"id": run.id, "ev": "exit", "status": run.c1})

    def kill(run):
        run.killed = True
        if run.c1 is None:
            os.kill(run.pid, signal.SIGKILL)
        if run.pidfd >= 0 and not run.gone:
            try:
                signal.pidfd_send_signal(run.pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def report(run):
        try:
            data, got, _, _ = socket.recv_fds(run.report, 600, 1)
        except OSError:
            data, got = b"", []
        if not data:
            for x in got:
                os.close(x)
            del by_report[run.report.fileno()]
            run.eof = True
            return
        kind, rest = data[:1], data[1:]
        if kind == b"P" and len(got) == 1 and run.pidfd < 0 and not rest:
            run.pidfd = got[0]
            by_pidfd[run.pidfd] = run
            if run.killed:
                kill(run)
            return
        for x in got:
            os.close(x)
        if kind == b"S" and not rest and not run.started:
            run.started = True
            send({"id": run.id, "ev": "started"})
        elif kind == b"X" and run.status is None and rest.isdigit():
            run.status = int(rest)
        elif kind == b"E" and not run.started:
            run.err = rest.decode("utf-8", "replace")

    def start(msg, got):
        # A fork that fails (the zygote's process limit, reached by runs
        # that fork without end) fails this run alone, never the zygote.
        try:
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        except OSError as e:
            for fd in got:
                os.close(fd)
            send({"id": msg["id"], "ev": "error", "error": "socketpair: %s" % e})
            return
        gc.freeze()
        try:
            pid = os.fork()
        except OSError as e:
            for x in (mine, theirs):
                x.close()
            for fd in got:
                os.close(fd)
            send({"id": msg["id"], "ev": "error", "error": "fork: %s" % e})
            return
        if pid == 0:
            mine.close()
            sock.close()
            os.close(wake_r)
            os.close(wake_w)
            signal.set_wakeup_fd(-1)
            for r in runs.values():
                r.report.close()
                if r.pidfd >= 0:
                    os.close(r.pidfd)
            child(cfg, msg, got, theirs)
            os._exit(127)
        theirs.close()
        for fd in got:
            os.close(fd)
        run = Run(msg["id"], pid, mine)
        runs[run.id], by_pid[pid], by_report[mine.fileno()] = run, run, run

    send({"ev": "ready", "pid": os.getpid()})
    while True:
        fds = [sock.fileno(), wake_r] + list(by_report) + list(by_pidfd)
        try:
            ready, _, _ = select.select(fds, [], [])
        except InterruptedError:
            continue
        touched = set()
        if wake_r in ready:
            try:
                while os.read(wake_r, 512):
                    pass
            except BlockingIOError:
                pass
            while True:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                run = by_pid.get(pid)
                if run is not None:
                    run.c1 = status
                    touched.add(run)
                # Otherwise an orphan (a run's init whose parent was
                # killed): reaped, its pidfd says it is gone.
        for fd in ready:
            run = by_report.get(fd)
            if run is not None:
                report(run)
                touched.add(run)
            run = by_pidfd.get(fd)
            if run is not None:
                run.gone = True
                del by_pidfd[fd]
                touched.add(run)
        for run in touched:
            settle(run)
        if sock.fileno() in ready:
            try:
                data, got, _, _ = socket.recv_fds(sock, 1 << 16, 16)
            except ConnectionResetError:
                data, got = b"", []
            if not data:
                for run in list(runs.values()):
                    kill(run)
                os._exit(0)
            msg = json.loads(data)
            if msg["op"] == "kill":
                run = runs.get(msg["id"])
                if run is not None:
                    kill(run)
            elif msg["op"] == "run":
                start(msg, got)


if __name__ == "__main__":
    main()
