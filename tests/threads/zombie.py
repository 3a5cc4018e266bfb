#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""zombie.py CT PROG: the recorder killed and left a zombie (its parent, this
script, does not reap it) while the program fills the pool and waits for
chunks: the program must notice and run on untraced. Prints one line; exit 0
if the program ended within 30 s."""
import os
import signal
import subprocess
import sys
import time

ct, prog = sys.argv[1], sys.argv[2]
rec = subprocess.Popen([ct, 'record', '-o', 'zombie.data', '--', prog, 'spin', '20000000'],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
child = None
deadline = time.time() + 10
while child is None and time.time() < deadline:
    try:
        with open('/proc/%d/task/%d/children' % (rec.pid, rec.pid)) as f:
            kids = f.read().split()
        child = int(kids[0]) if kids else None
    except OSError:
        break
    time.sleep(0.01)
if child is None:
    rec.kill()
    rec.wait()
    print('the program did not start')
    sys.exit(1)
time.sleep(0.3)
os.kill(rec.pid, signal.SIGKILL)  # and no wait: a zombie
time.sleep(0.2)
with open('/proc/%d/stat' % rec.pid) as f:
    state = f.read().rsplit(')', 1)[1].split()[0]


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] not in ('Z', 'X')
    except OSError:
        return False


end = time.time() + 30
while alive(child) and time.time() < end:
    time.sleep(0.05)
hung = alive(child)
if hung:
    os.kill(child, signal.SIGKILL)
rec.wait()
if hung:
    print('the program still waited for its dead recorder (state %s) after 30 s' % state)
    sys.exit(1)
print('the program ran on after its recorder died (recorder state %s)' % state)
