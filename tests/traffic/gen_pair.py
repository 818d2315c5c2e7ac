"""One `gen serve` and one `gen send` against it, for the traffic system tests."""
import subprocess


def serve_and_send(serve_argv, send_argv, timeout=30):
    """Start serve_argv, run send_argv to its end, then wait for the server (killed if it hangs).

    Prints both outputs and returns (send's CompletedProcess, serve's stdout, serve's exit status).
    """
    srv = subprocess.Popen(serve_argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        snd = subprocess.run(send_argv, capture_output=True, text=True, timeout=timeout)
        sout, serr = srv.communicate(timeout=timeout)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    print(snd.stdout, snd.stderr, sout, serr)
    return snd, sout, srv.returncode
