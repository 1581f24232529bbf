#!/usr/bin/env python3
"""Mutation loop over the pmusim commands that read traces and lackey logs.

libFuzzer's targets (fuzz-trace, fuzz-feed, fuzz-lackey) call the library;
this loop runs the commands a user runs, on mutated copies of small valid
inputs, and checks what the project promises of every command on bad input
(docs/FUZZING.md, "Commands on mutated inputs"):

  - exit 0 or 1 (2 is for usage errors, and the loop's usage is valid); no
    signal, no sanitizer report, no hang (a timeout);
  - on exit 1, stderr's error is one line 'pmusim: FILE: ...' naming the
    input and, for a refusal of its contents, a byte or a line;
  - on exit 1, no output file and no temporary file beside it;
  - the input is never modified.

usage: cli_mutate.py PMUSIM SECONDS WORKDIR SEEDDIR... [--seed N]
       [--timeout SECONDS] [--keep-going]

SEEDDIR files: *.txt and *.pmt traces, *.stream (a decompressed binary
stream after one 0xB0 byte, fuzz-trace's convention, compressed again with
the `zstd` command after mutation) and *.log (lackey logs).  Failures are
kept in WORKDIR/fail-N/ with the command line and its stderr.  Prints one
summary line per command kind; exits 1 if anything failed.
"""
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import time

# words and values that the session 19-21 fields introduced, and their edges
TEXT_TOKENS = [
    b"lvl=lfb", b"lvl=6", b"lvl=7", b"stfwd", b"lock", b"opk=fused", b"opk=10", b"opk=11",
    b"opk=15", b"dep=0", b"dep=1", b"dep=63", b"dep=64", b"dep=255", b"dep=256",
    b"dep=0x3f", b"dep=-1", b"bdep=0", b"bdep=1", b"bdep=63", b"bdep=64", b"bdep=0x100",
    b"mem=ld", b"mem=st", b"br=cond", b"br=call", b"br=iprel", b"br=icall", b"br=ret",
    b"xflags=0x8000", b"xflags=0x2800", b"xflags=0xffff", b"xflags=0x10000",
    b"n=0", b"n=18446744073709551615", b"n=18446744073709551616", b"plm=4",
    b"code=0xd0", b"umask=0x1", b"code=0x10000", b"event", b"mem", b"insn", b"idle",
    b"thread", b"marker", b"symbol", b"end", b"isa ia64", b"cpu ita2", b"cpu knm",
    b"cpu wsm_dp", b"threads 8", b"threads 9",
    b"meta annotations lfb,stfwd,dep,fuse,brdep", b"meta annotations ",
    b"meta evsum 0xd0/0x01", b"meta events 0xd0/*", b"\\x00", b"\\xff", b"#", b"\r",
    b"\t", b" ", b"=", b"\x00", b"\xff", b"18446744073709551615", b"0x", b"4294967296",
]
LACKEY_TOKENS = [
    b"I  ", b" L ", b" S ", b" M ", b"==", b",", b"0", b"255", b"256", b"-1",
    b"ffffffffffffffff", b"10000000000000000", b"\r", b"\n", b"\x00", b"\t",
]
# header bytes of the binary records (FORMAT.md §4) and values at the edges
# of the new fields
BIN_BYTES = [0x00, 0x01, 0x06, 0x08, 0x3f, 0x40, 0x41, 0x7f, 0x80, 0x81, 0x87, 0x90, 0x91,
             0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0xff, 0x0c, 0x1c, 0x10, 0x20]

POSITION = re.compile(rb"(byte \d+|line \d+)")
NOT_ERRORS = (b"pmusim: warning: ", b"pmusim stat: note: ")
# refusals that name the input but are about the command's choices, not
# the input's bytes (a model that does not fit the trace)
NOT_POSITIONAL = re.compile(rb"but the \w+ model is|model \w+ supports")
# a usage error (exit 2) that the input makes: a trace without a CPU needs
# annotate's --cpu
NEEDS_OPTION = re.compile(rb"names no CPU: give --cpu")
# bytes an error line may hold: printable ASCII (an input's bytes are
# quoted escaped, so that a \r or an escape sequence cannot hide or
# rewrite the message on a terminal)
PRINTABLE = re.compile(rb"^[\x20-\x7e]*$")


def mutate_bytes(rng, data, tokens, others):
    """One to four mutations: bit flips, byte values, truncation, insertion
    or deletion of a range, a token, a repeated or dropped line, a splice
    with another input."""
    d = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(10)
        n = len(d)
        if op == 0 and n:
            i = rng.randrange(n)
            d[i] ^= 1 << rng.randrange(8)
        elif op == 1 and n:
            d[rng.randrange(n)] = rng.choice(BIN_BYTES) if rng.random() < 0.5 else rng.randrange(256)
        elif op == 2 and n:
            del d[rng.randrange(n + 1):]
        elif op == 3:
            i = rng.randrange(n + 1)
            d[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 4 and n:
            i = rng.randrange(n)
            del d[i:i + rng.randint(1, 16)]
        elif op in (5, 6) and tokens:
            i = rng.randrange(n + 1)
            tok = rng.choice(tokens)
            if op == 6 and n:
                # replace the token around i (up to the next blank)
                j = i
                while j < n and d[j] not in b" \n":
                    j += 1
                d[i:j] = tok
            else:
                d[i:i] = tok
        elif op == 7 and n:
            lines = bytes(d).split(b"\n")
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(rng.randrange(len(lines) + 1), lines[i])
            else:
                del lines[i]
            d = bytearray(b"\n".join(lines))
        elif op == 8 and others:
            o = rng.choice(others)
            i = rng.randrange(n + 1)
            j = rng.randrange(len(o) + 1)
            d = bytearray(bytes(d[:i]) + o[j:])
        elif op == 9 and n:
            # a number replaced by an edge value
            m = list(re.finditer(rb"\d+", bytes(d)))
            if m:
                x = rng.choice(m)
                v = rng.choice([b"0", b"1", b"63", b"64", b"255", b"256", b"65535", b"65536",
                                b"4294967295", b"4294967296", b"18446744073709551615",
                                b"18446744073709551616"])
                d[x.start():x.end()] = v
    return bytes(d)


def zstd_pack(raw):
    p = subprocess.run(["zstd", "-q", "-1", "-c"], input=raw, stdout=subprocess.PIPE,
                       check=True)
    return p.stdout


def commands(kind, path, outdir, cpu_events):
    """(name, argv, output path or None) of the commands run on one input"""
    out_bin = os.path.join(outdir, "out.pmt")
    out_txt = os.path.join(outdir, "out.txt")
    out_cnt = os.path.join(outdir, "counts.txt")
    if kind == "lackey":
        return [("convert-lackey", ["trace", "convert", "--from", "lackey", path, out_bin,
                                    "--cpu", "wsm"], out_bin),
                ("convert-lackey-nomodel", ["trace", "convert", "--from", "lackey",
                                            "--no-model", path, out_txt, "--cpu", "knm"],
                 out_txt)]
    return [("annotate", ["trace", "annotate", path, out_bin], out_bin),
            ("annotate-text", ["trace", "annotate", path, out_txt], out_txt),
            ("stat", ["stat", "-e", cpu_events, "-o", out_cnt, path], out_cnt),
            ("convert", ["trace", "convert", "--strict", path, out_txt], out_txt)]


def main():
    args = sys.argv[1:]
    seed = int(time.time())
    timeout = 60.0
    keep_going = False
    rest = []
    i = 0
    while i < len(args):
        if args[i] == "--seed":
            seed = int(args[i + 1])
            i += 2
        elif args[i] == "--timeout":
            timeout = float(args[i + 1])
            i += 2
        elif args[i] == "--keep-going":
            keep_going = True
            i += 1
        else:
            rest.append(args[i])
            i += 1
    if len(rest) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    pmusim, seconds, work = rest[0], float(rest[1]), rest[2]
    rng = random.Random(seed)
    seeds = {"text": [], "stream": [], "lackey": [], "pmt": []}
    for d in rest[3:]:
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            with open(p, "rb") as f:
                data = f.read()
            if name.endswith(".log"):
                seeds["lackey"].append(data)
            elif name.endswith(".stream") and data[:1] == b"\xb0":
                seeds["stream"].append(data[1:])
            elif name.endswith(".txt") and data.startswith(b"pmusim-trace"):
                seeds["text"].append(data)
            elif name.endswith(".pmt"):
                seeds["pmt"].append(data)
    os.makedirs(work, exist_ok=True)
    inp_dir = os.path.join(work, "in")
    out_dir = os.path.join(work, "out")
    # events of the new fields, by CPU family of the seed (an event the
    # trace's CPU does not have is a usage-level refusal, checked as such)
    events = {
        b"wsm": "wsm::MEM_LOAD_RETIRED:HIT_LFB,"
                "wsm::LOAD_BLOCK:OVERLAP_STORE,"
                "wsm::MACRO_INSTS:DECODED:c=2,wsm::MACRO_INSTS_FUSIONS_DECODED,cycles,instructions",
        b"knm": "knm::RECYCLEQ:LD_BLOCK_ST_FORWARD,knm::RECYCLEQ:LOCK,cycles,instructions",
    }
    stats = {}
    failures = 0
    t_end = time.time() + seconds
    runs = 0
    while time.time() < t_end:
        pool = rng.choice([k for k in ("text", "stream", "lackey", "pmt") if seeds[k]])
        src = rng.choice(seeds[pool])
        data = mutate_bytes(rng, src,
                            LACKEY_TOKENS if pool == "lackey" else
                            TEXT_TOKENS if pool == "text" else None, seeds[pool])
        if pool == "stream":
            data = zstd_pack(data)
            suffix = ".pmt"
        elif pool == "pmt":
            suffix = ".pmt"
        else:
            suffix = ".log" if pool == "lackey" else ".txt"
        shutil.rmtree(inp_dir, ignore_errors=True)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(inp_dir)
        os.makedirs(out_dir)
        path = os.path.join(inp_dir, "input" + suffix)
        with open(path, "wb") as f:
            f.write(data)
        digest = hashlib.sha256(data).hexdigest()
        cpu = b"knm" if b"cpu knm" in data[:200] or b"\x04" == data[10:11] else b"wsm"
        kind = "lackey" if pool == "lackey" else "trace"
        for name, argv, out in commands(kind, path, out_dir, events[cpu]):
            for f in os.listdir(out_dir):
                os.unlink(os.path.join(out_dir, f))
            env = dict(os.environ)
            env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
            env.setdefault("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1")
            try:
                p = subprocess.run([pmusim] + argv, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, timeout=timeout, env=env)
                rc, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired as e:
                rc, err = "timeout", e.stderr or b""
            runs += 1
            st = stats.setdefault(name, {"runs": 0, "ok": 0, "refused": 0, "bad": 0})
            st["runs"] += 1
            why = []
            if rc not in (0, 1) and not (rc == 2 and NEEDS_OPTION.search(err)):
                why.append("exit %s" % rc)
            if b"Sanitizer" in err or b"runtime error" in err:
                why.append("sanitizer report")
            # warnings and notes are not errors; lines end at \n only (a
            # message is one line however many \r or \v it holds)
            errs = [l for l in err.split(b"\n") if l and not l.startswith(NOT_ERRORS)]
            if rc in (1, 2):
                st["refused"] += 1
                leftovers = os.listdir(out_dir)
                if leftovers:
                    why.append("exit 1 left %s" % leftovers)
                if rc == 2:
                    pass  # a usage error: the message and the pointer to --help
                elif len(errs) != 1:
                    why.append("%d error lines" % len(errs))
                elif not errs[0].startswith(b"pmusim: "):
                    why.append("error not 'pmusim: ...'")
                elif not PRINTABLE.match(errs[0]):
                    why.append("unescaped bytes in the error")
                elif (path.encode() in errs[0] and not POSITION.search(errs[0]) and
                      not NOT_POSITIONAL.search(errs[0])):
                    # naming the input, the refusal must say where in it
                    why.append("no byte or line")
                elif path.encode() not in errs[0] and not errs[0].startswith(
                        (b"pmusim: event ", b"pmusim: stat: ", b"pmusim: wsm::", b"pmusim: knm::")):
                    why.append("input not named")
            elif rc == 0:
                st["ok"] += 1
                if not os.path.exists(out):
                    why.append("exit 0 without the output")
            with open(path, "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != digest:
                    why.append("input modified")
            if why:
                st["bad"] += 1
                failures += 1
                keep = os.path.join(work, "fail-%d" % failures)
                os.makedirs(keep, exist_ok=True)
                with open(os.path.join(keep, "input" + suffix), "wb") as f:
                    f.write(data)
                with open(os.path.join(keep, "report.txt"), "wb") as f:
                    f.write(("%s: %s\n%s\n" % (name, "; ".join(why),
                                               " ".join([pmusim] + argv))).encode())
                    f.write(err)
                print("FAIL %s: %s (kept in %s)" % (name, "; ".join(why), keep), flush=True)
                if not keep_going:
                    t_end = 0
                    break
    for name in sorted(stats):
        s = stats[name]
        print("%s: %d runs, %d exit 0, %d exit 1, %d failed" % (name, s["runs"], s["ok"],
                                                                 s["refused"], s["bad"]))
    print("cli_mutate: %d runs, seed %d, %d failed" % (runs, seed, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
