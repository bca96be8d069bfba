"""Progress events reach Python while the engine runs without the GIL; an exception raised by the
callback, and Ctrl-C (SIGINT), stop a fit cleanly."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import frfit
from conftest import DATASETS, REPO


def test_progress_events(paper):
    events = []
    frfit.fit(frfit.Model(paper / "model.yaml"), [paper / "frf_milling_inertance.h5"],
              paper / "fit.yaml", seed=1, progress=events.append)
    assert events and {"phase", "cycle", "step", "best_cost", "evaluations"} <= set(events[0])
    assert {e["phase"] for e in events} >= {"ga", "lm"}
    assert [e["evaluations"] for e in events] == sorted(e["evaluations"] for e in events)


def test_callback_exception_stops_the_fit(tmp_path, paper):
    seen = []

    def stop(event):
        seen.append(event)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        frfit.fit(frfit.Model(paper / "model.yaml"), [paper / "frf_milling_inertance.h5"],
                  paper / "fit.yaml", progress=stop)
    assert len(seen) == 2
    # The module is usable afterwards.
    r = frfit.fit(frfit.Model(paper / "model.yaml"), [paper / "frf_milling_inertance.h5"], paper / "fit.yaml")
    assert r.termination


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
def test_sigint_stops_a_long_fit():
    # The paper's GA + Nelder-Mead settings on the KUKA model, slowed down by its callback.
    script = textwrap.dedent(f"""
        import sys, time, frfit
        d = {str(DATASETS / 'kuka_kr90')!r}
        model = frfit.Model(d + '/model.yaml')
        def started(event):
            if event['evaluations'] > 0 and not getattr(started, 'said', False):
                started.said = True
                print('started', flush=True)
            time.sleep(0.01)  # a fit of minutes however fast the machine: the signal meets it
        try:
            frfit.fit(model, [d + '/frf_milling_inertance.h5'], d + '/fit_paper.yaml', threads=1, progress=started)
        except KeyboardInterrupt:
            print('interrupted', flush=True)
            sys.exit(3)
        print('finished', flush=True)
    """)
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline().strip() == "started"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 3 and out.strip() == "interrupted"
    assert time.monotonic() - t0 < 30
