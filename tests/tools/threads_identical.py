#!/usr/bin/env python3
"""--threads 1, 2, 3, 5 and 8 give the same output: analyze --json and with --kind, timeline (CSV), report, dissect text
and --json, on every capture of the repository (tests/**/*.pcap*), and dissect of several files at
once (file names, frames merged by time); a timeline whose writes fail part-way ends with the same
message and exit at every count.

usage: threads_identical.py ROCETRACE SOURCE_ROOT
The oracle is --threads 1: one thread reads, decodes and analyzes, no other starts.
"""
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile

THREADS = (1, 2, 3, 5, 8)  # which part a host pair lands in depends on N


def run(exe, args, out_file=None):
    p = subprocess.run([exe] + args, capture_output=True, timeout=120)
    body = p.stdout
    if out_file and os.path.exists(out_file):
        with open(out_file, 'rb') as f:
            body += f.read()
        os.unlink(out_file)
    return p.returncode, body, p.stderr


def check(exe, tmp, name, make_args):
    """The command at each thread count; returns a failure line or None."""
    results = []
    for n in THREADS:
        out = os.path.join(tmp, '%x.out' % abs(hash(name)))  # one name: the page shows it
        args, out_file = make_args(out)
        results.append(run(exe, args + ['--threads', str(n)], out_file))
    rc0, body0, err0 = results[0]
    if rc0 == 2 or rc0 < 0:  # refused or killed at every count alike would pass unseen
        return '%s: --threads 1 exit %d: %s' % (name, rc0, err0[-200:])
    for n, (rc, body, err) in zip(THREADS[1:], results[1:]):
        if (rc, body, err) != (rc0, body0, err0):
            return '%s: --threads %d differs from --threads 1 (rc %d/%d, %d/%d bytes)' % (
                name, n, rc, rc0, len(body), len(body0))
    return None


def main():
    exe, root = sys.argv[1], sys.argv[2]
    caps = sorted(glob.glob(os.path.join(root, 'tests', '**', '*.pcap*'), recursive=True))
    assert len(caps) >= 20, 'the repository has its captures'
    jobs = []
    with tempfile.TemporaryDirectory() as tmp:
        for cap in caps:
            rel = os.path.relpath(cap, root)
            jobs += [
                ('analyze --json ' + rel, lambda o, c=cap: (['analyze', c, '--json'], None)),
                ('analyze --kind data,nak ' + rel,
                 lambda o, c=cap: (['analyze', c, '--kind', 'data,nak'], None)),
                ('timeline ' + rel, lambda o, c=cap: (['timeline', c, '-o', o], o)),
                ('report ' + rel, lambda o, c=cap: (['report', c, '-o', o], o)),
                ('dissect ' + rel, lambda o, c=cap: (['dissect', c, '-v', '-#', '-ttt'], None)),
                ('dissect --json ' + rel, lambda o, c=cap: (['dissect', c, '--json'], None)),
            ]
        rxe = sorted(glob.glob(os.path.join(root, 'tests', 'captures', 'rxe_*.pcap')))
        jobs.append(('dissect of several files', lambda o: (['dissect', '-v', '-#'] + rxe, None)))
        jobs.append(('dissect --json of several files',
                     lambda o: (['dissect', '--json'] + rxe, None)))
        # several files named as one point: the split takes them as one capture point
        one = 'one=' + ','.join(rxe)
        jobs.append(('analyze --json of several files as one point',
                     lambda o: (['analyze', '--json', '--vantage', one], None)))
        jobs.append(('timeline of several files as one point',
                     lambda o: (['timeline', '--bucket', '100us', '--vantage', one, '-o', o], o)))
        # a write that fails part-way (on the output thread): the same message and exit
        busy = os.path.join(root, 'tests', 'analyze', 'scenarios', 'incast.pcap')
        jobs.append(('timeline to a full device',
                     lambda o: (['timeline', busy, '--bucket', '1us', '-o', '/dev/full'], None)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            failures = [f for f in pool.map(lambda j: check(exe, tmp, j[0], j[1]), jobs) if f]
    # the analysis was split (a stage's threads print their times), not run beside the reading thread
    env = dict(os.environ, ROCETRACE_THREAD_TIMES='1')
    for what, args in (('one file', [rxe[0]]), ('files named as one point', ['--vantage', one])):
        p = subprocess.run([exe, 'analyze', '--json', '--threads', '2'] + args, env=env,
                           capture_output=True, timeout=120)
        if b'rocetrace: thread times: reading' not in p.stderr:
            failures.append('analyze of %s at --threads 2 was not split: %r' % (what, p.stderr[-200:]))
    # from 4 threads an output thread hands the buckets to the timeline, beside the staging thread that
    # makes them; below, the reading thread writes them (it sheds parts to the others meanwhile)
    for n, output in (('2', False), ('3', False), ('5', True)):
        p = subprocess.run([exe, 'timeline', '--threads', n, '--bucket', '1us', rxe[0]], env=env,
                           capture_output=True, timeout=120)
        if (b'; output ' in p.stderr) != output:
            failures.append('timeline at --threads %s %s an output thread: %r' % (
                n, 'had no' if output else 'had', p.stderr[-200:]))
    for f in failures:
        print(f)
    print('%d commands on %d captures at --threads %s: %d differ' % (
        len(jobs), len(caps), ','.join(map(str, THREADS)), len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
