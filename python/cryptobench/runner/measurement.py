"""Measuring a run's cases: agreement across providers (each in its own process), then the
cases scheduled by key, sampled in shuffled batches, adaptively, and their outcomes."""

import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptobench import agreement, gate, stats
from cryptobench.capabilities import Capabilities, wire_bytes
from cryptobench.errors import UserError
from cryptobench.plan import CaseSpec
from cryptobench.runner.discovery import list_capabilities, runner_paths
from cryptobench.runner.process import RunnerFailure, ServeProcess

MEASUREMENT_FIELDS = ("layout", "clock", "rewarms", "heap", "jvm", "handshake")


@dataclass
class Outcome:
    """What became of one case. `failure` names the kind of failure for the failures table."""

    case_id: int
    case: CaseSpec
    status: str  # ok, failed, unsupported
    reason: str = ""
    gate: dict[str, Any] = field(default_factory=dict)
    iterations: int | None = None
    calibration_ns: int | None = None
    samples: list[tuple[int, int, int]] = field(default_factory=list)  # iterations, ns, ticks
    heap: dict[str, Any] | None = None
    max_rss_kb: int | None = None
    runner_summary: dict[str, Any] | None = None
    # What else the runner reported about how it measured: layout, clock, rewarms, heap record.
    measurement: dict[str, Any] | None = None
    failure: str | None = None  # gate, library, crash, timeout, protocol, start
    detail: str = ""


@dataclass
class _Worker:
    """The serve process of one (provider, variant), started from its provider's runner."""

    provider: str
    variant: str
    exe: Path
    proc: ServeProcess | None = None
    start_error: RunnerFailure | None = None  # set once it could not start: it will not later

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.variant}"


@dataclass
class _Slot:
    """One case of the group being measured, in its worker's process."""

    case_id: int
    case: CaseSpec
    worker: _Worker
    samples: list[tuple[int, int, int]] = field(default_factory=list)
    opened: dict[str, Any] = field(default_factory=dict)  # the `case` reply
    gated: dict[str, Any] = field(default_factory=dict)  # the coordinator's gate record
    agreement: dict[str, Any] = field(default_factory=dict)  # for the stored gate record
    units_done: int = 0  # progress units of this case already counted


ProgressFn = Callable[[int, int, str], None]


def group_key(case: CaseSpec) -> tuple:
    """What providers are compared on: the case without its provider and variant."""
    return case.key()[2:]


class Measurement:
    """Measures cases grouped by case key, one serve process per (provider, variant).

    For each key (in an order shuffled with `order_seed`, recorded by the caller), agreement is
    checked first: every provider offering the case computes its artifacts in its own process and
    the coordinator decides who disagrees (agreement.py). Then the key is opened in every provider
    that passed, their samples are taken in batches in a freshly shuffled provider order each
    round, and the cases are closed, before the next key. So providers compared on one key are
    measured side by side in time, and drift on a shared machine hits them alike.

    `on_outcome` is called as each case completes (the store commits it right there);
    `on_progress(done, total, label)` reports progress in units of one sample (plus one each for
    opening and closing a case). `caps` is the merged capability set (`discover()`; listed from
    `exe` when absent); `runners` maps a provider to the runner executable that serves it (default:
    `caps.runner_of`, else `exe` for all).
    """

    def __init__(
        self,
        exe: Path,
        cases: list[tuple[int, CaseSpec]],
        timeout_s: float,
        on_outcome: Callable[[Outcome], None],
        on_progress: ProgressFn | None = None,
        runner_args: Iterable[str] = (),
        *,
        caps: Capabilities | None = None,
        runners: dict[str, Path] | None = None,
        order_seed: int | None = None,
    ):
        self.exe, self.timeout_s = exe, timeout_s
        self.on_outcome, self.on_progress = on_outcome, on_progress
        self.runner_args = list(runner_args)
        self.caps = caps
        self.runners = runners or (runner_paths(caps) if caps else {})
        self.order_seed = (
            order_seed if order_seed is not None else random.SystemRandom().randrange(1 << 31)
        )
        self._rng = random.Random(self.order_seed)
        self.workers: dict[tuple[str, str], _Worker] = {}
        groups: dict[tuple, list[tuple[int, CaseSpec]]] = {}
        for case_id, case in cases:
            key = (case.provider, case.variant)
            if key not in self.workers:
                exe_for = self.runners.get(case.provider, exe)
                self.workers[key] = _Worker(case.provider, case.variant, exe_for)
            groups.setdefault(group_key(case), []).append((case_id, case))
        self.groups = list(groups.values())
        self._rng.shuffle(self.groups)
        # Agreement is per (algorithm, operation, cost) and decided once for all sizes.
        self._agreement: dict[tuple, dict[tuple[str, str], dict[str, Any]]] = {}
        self._participants: dict[tuple, set[tuple[str, str]]] = {}
        for _, case in cases:
            self._participants.setdefault(_agreement_key(case), set()).add(
                (case.provider, case.variant)
            )
        self.vectors = gate.Vectors()
        self.total = sum(_units(c) for _, c in cases)
        self.done = 0
        self.cases_total, self.cases_done = len(cases), 0
        self._label = ""

    def run(self) -> None:
        try:
            for group in self.groups:
                self._measure_group(group)
        finally:
            for worker in self.workers.values():
                if worker.proc:
                    worker.proc.stop()

    # ---- one group: agreement, open, interleaved samples, close --------------------------------

    def _measure_group(self, group: list[tuple[int, CaseSpec]]) -> None:
        slots: list[_Slot] = []
        for case_id, case in group:
            slot = _Slot(case_id, case, self.workers[(case.provider, case.variant)])
            self._label = case.label()
            agreement = self._agreement_for(case)
            slot.agreement = agreement
            if agreement.get("failed"):
                self._finish(slot, self._failed(slot, agreement["reason"], agreement["failure"]))
                continue
            slots.append(slot)
        self._rng.shuffle(slots)
        open_slots = [s for s in slots if self._open(s)]
        while open_slots:
            self._rng.shuffle(open_slots)
            for slot in list(open_slots):
                if not self._sample(slot):
                    open_slots.remove(slot)
                elif not wants_more(slot.case, slot.samples):
                    open_slots.remove(slot)
                    self._close(slot)

    def _proc(self, w: _Worker) -> ServeProcess:
        """The worker's running process, started (again) when needed. Raises RunnerFailure."""
        if w.start_error:
            raise w.start_error
        if w.proc is None:
            proc = ServeProcess(w.exe, w.provider, w.variant, self.timeout_s, self.runner_args)
            try:
                proc.start()
            except RunnerFailure as e:
                proc.kill()
                e.kind = "start"
                w.start_error = e
                raise
            w.proc = proc
        return w.proc

    def _request(self, w: _Worker, message: dict[str, Any], doing: str) -> dict[str, Any]:
        proc = self._proc(w)
        try:
            return proc.request(message, doing)
        except RunnerFailure:
            proc.kill()
            w.proc = None  # restarted for the next request
            raise

    def _open(self, slot: _Slot) -> bool:
        """Opens the case; False when it ended there (refused, crashed)."""
        self._report(slot.case)
        try:
            request = {"cmd": "open", "case": slot.case.to_protocol(_wire_id(slot.case_id))}
            if gate.gated_by_coordinator(self._proc(slot.worker).hello):
                gated = self._gate_case(slot, request["case"])
                if gated.status != "ok":
                    self._finish(slot, self._refused(slot, gated.status, gated.reason))
                    return False
                request["params"] = gated.params.to_json()
            reply = self._request(slot.worker, request, "opening the case (warm-up, calibration)")
            _expect(reply, "case", slot.case_id)
        except RunnerFailure as e:
            self._finish(slot, self._failed(slot, e.message, e.kind, e.detail))
            return False
        self._advance(slot, 1)
        status = reply.get("status")
        if status != "ok":
            status = "unsupported" if status == "unsupported" else "failed"
            slot.opened = {"gate": reply.get("gate")}
            self._finish(slot, self._refused(slot, status, reply.get("reason", "")))
            return False
        slot.opened = reply
        return True

    def _refused(self, slot: _Slot, status: str, reason: str) -> Outcome:
        """A case the gate (the runner's or ours) refused, or found unsupported."""
        failure = "gate" if status == "failed" else None
        gate_record = self._gate(slot, slot.opened.get("gate"))
        return Outcome(slot.case_id, slot.case, status, reason, gate=gate_record, failure=failure)

    def _gate_case(self, slot: _Slot, spec: dict[str, Any]) -> "gate.Gated":
        """The coordinator's gate of a case whose runner does not gate itself. Raises
        RunnerFailure."""
        send = self._sender(slot.worker, spec, "running the gate's known-answer steps")
        gated = gate.gate_case(
            send, self._catalogue()[spec["algorithm"]], spec, self.vectors, self._offered(slot)
        )
        slot.gated = {**gated.record, "agreement": "checked by the coordinator"}
        return gated

    def _sender(self, w: _Worker, spec: dict[str, Any], doing: str):
        """Sends a `steps` request for the case and checks the reply's kind."""

        def send(steps: list[dict[str, Any]]) -> dict[str, Any]:
            reply = self._request(w, {"cmd": "steps", "case": spec, "steps": steps}, doing)
            if reply.get("type") == "error":
                raise RunnerFailure(
                    "protocol", f"runner refused the steps request: {reply.get('message')}"
                )
            if reply.get("type") != "steps" or reply.get("id") != spec["id"]:
                raise RunnerFailure(
                    "protocol",
                    f"runner broke the protocol: expected steps for {spec['id']}, got "
                    f"{reply.get('type')!r} for {reply.get('id')!r}",
                )
            return reply

        return send

    def _catalogue(self) -> dict[str, dict[str, Any]]:
        caps = self._capabilities()
        return {a["name"]: a for a in (caps.raw.get("algorithms", []) if caps else [])}

    def _offered(self, slot_or_worker) -> set[str]:
        w = slot_or_worker.worker if isinstance(slot_or_worker, _Slot) else slot_or_worker
        caps = self._capabilities()
        provider = caps.providers.get(w.provider) if caps else None
        return set(provider.offered(w.variant)) if provider else set()

    def _sample(self, slot: _Slot) -> bool:
        """One batch of samples; False when the case ended (library error, crash)."""
        case = slot.case
        before = len(slot.samples)
        count = min(case.batch, sample_cap(case) - before)
        try:
            reply = self._request(
                slot.worker,
                {"cmd": "sample", "id": _wire_id(slot.case_id), "count": count},
                "sampling",
            )
            if reply.get("type") == "result":  # the library failed mid-sampling: the case is over
                _expect(reply, "result", slot.case_id)
                self._finish(slot, self._from_result(slot, reply))
                return False
            _expect(reply, "samples", slot.case_id)
        except RunnerFailure as e:
            self._finish(slot, self._failed(slot, e.message, e.kind, e.detail))
            return False
        slot.samples += [_sample_tuple(s) for s in reply.get("samples", [])]
        # Progress counts the planned samples; an extension beyond them adds no units.
        self._advance(
            slot, max(0, min(len(slot.samples), case.samples) - min(before, case.samples))
        )
        return True

    def _close(self, slot: _Slot) -> None:
        try:
            reply = self._request(
                slot.worker, {"cmd": "close", "id": _wire_id(slot.case_id)}, "closing the case"
            )
            _expect(reply, "result", slot.case_id)
            outcome = self._from_result(slot, reply)
            if outcome.status == "ok" and outcome.samples != slot.samples:
                raise RunnerFailure(
                    "protocol",
                    "runner broke the protocol: result samples differ from the samples sent",
                )
        except RunnerFailure as e:
            outcome = self._failed(slot, e.message, e.kind, e.detail)
        self._finish(slot, outcome)

    # ---- agreement -----------------------------------------------------------------------------

    def _agreement_for(self, case: CaseSpec) -> dict[str, Any]:
        """This case's provider's agreement verdict: {"failed": bool, "reason", "failure",
        "summary", "detail"}; computed for all participants of the agreement key at once."""
        key = _agreement_key(case)
        if key not in self._agreement:
            self._agreement[key] = self._check_agreement(case, sorted(self._participants[key]))
        return self._agreement[key][(case.provider, case.variant)]

    def _check_agreement(
        self, case: CaseSpec, participants: list[tuple[str, str]]
    ) -> dict[tuple[str, str], dict[str, Any]]:
        caps = self._capabilities()
        alg = caps.algorithms.get(case.algorithm) if caps else None
        if alg is None:  # nothing to make material from: the runners' gates stand alone
            return {p: {"failed": False, "summary": "not checked"} for p in participants}
        names = {p: f"{p[0]}/{p[1]}" for p in participants}
        mat = agreement.material(alg, seed=case.seed)
        spec = case.to_protocol("agreement")
        replies: dict[str, agreement.Reply] = {}
        crashed: dict[str, RunnerFailure] = {}
        for p in participants:
            w = self.workers[p]
            message = {
                "cmd": "agreement",
                "case": {**spec, "provider": w.provider, "variant": w.variant},
                "material": mat,
            }
            try:
                if gate.gated_by_coordinator(self._proc(w).hello):
                    send = self._sender(w, message["case"], "computing its agreement output")
                    info = self._catalogue()[case.algorithm]
                    reply = gate.agreement_reply(send, info, message["case"], mat, self.vectors)
                else:
                    reply = self._request(w, message, "computing its agreement output")
                if reply.get("type") == "error":
                    raise RunnerFailure(
                        "protocol", f"runner refused the agreement request: {reply.get('message')}"
                    )
                replies[names[p]] = agreement.Reply.from_message(reply)
            except RunnerFailure as e:
                crashed[names[p]] = e
        cross: dict[str, dict[str, dict[str, Any]]] = {}
        ok = {n: r for n, r in replies.items() if r.status == "ok"}
        if agreement.needs_cross_check(alg, case.operation) and len(ok) > 1:
            for p in participants:
                checker = names[p]
                if checker not in ok:
                    continue
                w = self.workers[p]
                peers = {n: r.artifacts for n, r in ok.items() if n != checker}
                message = {
                    "cmd": "cross_check",
                    "case": {**spec, "provider": w.provider, "variant": w.variant},
                    "material": mat,
                    "peers": peers,
                }
                try:
                    if gate.gated_by_coordinator(self._proc(w).hello):
                        doing = "checking the other providers' output"
                        cross[checker] = gate.cross_check_verdicts(
                            self._sender(w, message["case"], doing),
                            self._catalogue()[case.algorithm],
                            message["case"],
                            mat,
                            peers,
                            self.vectors,
                            self._offered(w),
                        )
                        continue
                    reply = self._request(w, message, "checking the other providers' output")
                    cross[checker] = reply.get("verdicts") or {}
                except RunnerFailure as e:
                    crashed[checker] = e
        verdicts = agreement.decide(
            alg, case.operation, {n: r for n, r in replies.items() if n not in crashed}, cross
        )
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for p in participants:
            n = names[p]
            if n in crashed:
                e = crashed[n]
                out[p] = {
                    "failed": True,
                    "reason": e.message,
                    "failure": e.kind,
                    "detail": e.detail,
                }
            elif n in verdicts:
                v = verdicts[n]
                out[p] = {
                    "failed": not v.ok,
                    "reason": f"cross-provider agreement failed: {v.summary}",
                    "failure": "gate",
                    "summary": v.summary,
                    "detail": v.detail(),
                }
            else:  # unsupported or could not compute: the case's own gate decides
                r = replies[n]
                out[p] = {"failed": False, "summary": f"not compared ({r.reason or r.status})"}
        return out

    def _capabilities(self) -> Capabilities | None:
        if self.caps is None:
            try:
                self.caps = list_capabilities(self.exe)
            except UserError:
                return None
        return self.caps

    # ---- outcomes ------------------------------------------------------------------------------

    def _gate(self, slot: _Slot, gate: dict[str, Any] | None) -> dict[str, Any]:
        """The runner's gate record (or the coordinator's, with the runner's `timed`) with the
        coordinator's agreement verdict in it, and the bytes on the wire of a public-key case."""
        out = {**slot.gated, **(gate or {})}
        wire = wire_bytes(self._catalogue().get(slot.case.algorithm, {}))
        if wire:
            out["wire"] = wire
        if slot.agreement.get("summary"):
            out["agreement"] = slot.agreement["summary"]
        if slot.agreement.get("detail"):
            out["agreement_detail"] = slot.agreement["detail"]
        return out

    def _failed(self, slot: _Slot, reason: str, failure: str, detail: str = "") -> Outcome:
        return Outcome(
            slot.case_id,
            slot.case,
            "failed",
            reason,
            gate=self._gate(slot, slot.opened.get("gate")),
            failure=failure,
            detail=detail,
        )

    def _from_result(self, slot: _Slot, r: dict[str, Any]) -> Outcome:
        status = r.get("status")
        status = status if status in ("ok", "unsupported") else "failed"
        return Outcome(
            slot.case_id,
            slot.case,
            status,
            r.get("reason", ""),
            gate=self._gate(slot, r.get("gate") or slot.opened.get("gate")),
            iterations=slot.opened.get("iterations"),
            calibration_ns=slot.opened.get("calibration_ns"),
            samples=[_sample_tuple(s) for s in r.get("samples", [])],
            heap=r.get("heap"),
            max_rss_kb=r.get("max_rss_kb"),
            runner_summary=r.get("summary"),
            measurement={k: r[k] for k in MEASUREMENT_FIELDS if k in r} or None,
            failure="library" if status == "failed" else None,
        )

    def _finish(self, slot: _Slot, outcome: Outcome) -> None:
        # A case that ends early (refused by the gate, crashed) gives back its unused units.
        self._advance(slot, _units(outcome.case) - slot.units_done)
        self.cases_done += 1
        self.on_outcome(outcome)

    def _advance(self, slot: _Slot, units: int) -> None:
        slot.units_done += units
        self.done += units
        self._report(slot.case)

    def _report(self, case: CaseSpec) -> None:
        if self.on_progress:
            label = f"{self.cases_done}/{self.cases_total} cases, now {case.label()}"
            self.on_progress(self.done, self.total, label)


def sample_cap(case: CaseSpec) -> int:
    return max(case.max_samples, case.samples)


def wants_more(case: CaseSpec, samples: list[tuple[int, int, int]]) -> bool:
    """The adaptive stop rule (docs/methodology.md, "Adaptive sampling"): at least min_samples;
    then stop as soon as the median's 95% bootstrap CI is narrower than ci_target relative to the
    median; else go on to `samples`, and beyond it up to max_samples while the CI stays wide.
    Without a ci_target, exactly `samples`."""
    n = len(samples)
    if n >= sample_cap(case):
        return False
    if case.ci_target <= 0:
        return n < case.samples
    if n < (case.min_samples or case.samples):
        return True
    per_op = [ns / iterations for iterations, ns, _ in samples if iterations]
    low, high = stats.bootstrap_median_ci(per_op)
    middle = stats.median(per_op)
    width = (high - low) / middle if middle > 0 else math.inf
    return width > case.ci_target


def _agreement_key(case: CaseSpec) -> tuple:
    return (case.algorithm, case.operation, case.cost)


def _units(case: CaseSpec) -> int:
    return case.samples + 2  # open, the samples, close


def _wire_id(case_id: int) -> str:
    return f"c{case_id}"


def _expect(reply: dict[str, Any], kind: str, case_id: int) -> None:
    if reply.get("type") == "error":
        raise RunnerFailure("protocol", f"runner refused the request: {reply.get('message')}")
    if reply.get("type") != kind or reply.get("id") != _wire_id(case_id):
        raise RunnerFailure(
            "protocol",
            f"runner broke the protocol: expected {kind} for {_wire_id(case_id)}, got "
            f"{reply.get('type')!r} for {reply.get('id')!r}",
        )


def _sample_tuple(s: dict[str, Any]) -> tuple[int, int, int]:
    return int(s["iterations"]), int(s["ns"]), int(s.get("ticks", 0))
