#!/usr/bin/env python3
"""A tiny DaemonSet planner in Python, run through daemonsched's conformance protocol.

It claims two profiles, placement and what-if: which nodes should run a daemon pod (nodeSelector,
required node affinity, taints and the default daemon tolerations, a template nodeName), the pod
the controller creates there, the pods it deletes from nodes that may no longer keep them, and
the status counters. It declines the other profiles' cases (diff, rolling, status) with
{"skip": ...}, so that `daemonsched conformance run --profile placement --profile what-if -- \
python3 daemonsched_conformance.py` reports those two profiles as conforming.

Protocol (conformance/testdata/protocol.schema.json): one JSON request per line on stdin
({"id", "case", "profile", "now", "burstLimit", "objects", "kubernetes"}); one JSON answer per
line on stdout, {"id", "daemonSets": [...]} in the shape of `daemonsched plan -o json`,
{"id", "skip": "why"}, or {"id", "error": "why"} for a release it does not model, the id
repeating the request's. It answers as the controller of the release "kubernetes" names
(v1.36.3 when absent): 1.33.0 to 1.37.2, each at its default feature gates. Only the standard
library is used.
"""

import copy
import json
import re
import sys

CLAIMED = {"placement", "what-if"}

# The releases this implementation models, by minor: the newest patch of each (VER-1).
NEWEST_PATCH = {33: 13, 34: 4, 35: 4, 36: 3, 37: 2}
PROTOCOL_DEFAULT = (1, 36, 3)  # a request without "kubernetes" (protocol.schema.json)


def parse_release(s):
    """(1, minor, patch) of a "kubernetes" field such as v1.35.4 or 1.35 (its newest patch);
    ValueError, saying what is modelled, for anything else."""
    m = re.fullmatch(r"v?1\.(0|[1-9][0-9]*)(?:\.(0|[1-9][0-9]*))?", s)
    minor = int(m.group(1)) if m else None
    if minor not in NEWEST_PATCH:
        raise ValueError("Kubernetes %r is not modelled: this implementation answers for 1.33 to 1.37 (1.33.0 to 1.37.2)" % s)
    patch = NEWEST_PATCH[minor] if m.group(2) is None else int(m.group(2))
    if patch > NEWEST_PATCH[minor]:
        raise ValueError("Kubernetes %r is not modelled: the newest 1.%d release it answers for is 1.%d.%d" % (s, minor, minor, NEWEST_PATCH[minor]))
    return (1, minor, patch)


def owns_by_uid_alone(release):
    """VER-4: 1.33.0-1.33.5 and 1.34.0-1.34.1 find a DaemonSet's pods by the uid of their
    controller reference alone; later patches and releases also compare namespace, kind, name."""
    return release < (1, 33, 6) or (1, 34, 0) <= release < (1, 34, 2)

DEFAULT_TOLERATIONS = [
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
]


def merged_tolerations(spec):
    """The template's tolerations with the defaults merged in (DEFTOL-1, DEFTOL-2)."""
    tols = copy.deepcopy(spec.get("tolerations") or [])
    defaults = list(DEFAULT_TOLERATIONS)
    if spec.get("hostNetwork"):
        defaults.append(("node.kubernetes.io/network-unavailable", "NoSchedule"))
    for key, effect in defaults:
        default = {"key": key, "operator": "Exists", "effect": effect}
        same = [i for i, t in enumerate(tols)
                if t.get("key", "") == key and t.get("operator", "") == "Exists"
                and t.get("value", "") == "" and t.get("effect", "") == effect]
        for i in same:
            tols[i] = dict(default)
        if not same:
            tols.append(dict(default))
    return tols


def tolerates(tol, taint):
    if tol.get("effect") and tol["effect"] != taint.get("effect"):
        return False
    op = tol.get("operator") or "Equal"
    if op in ("Lt", "Gt"):
        # TAINT-10: only TaintTolerationComparisonOperators (off by default in every release
        # that knows it, unknown before 1.35) makes these tolerate; the protocol sets no gates.
        return False
    if op == "Exists":
        return not tol.get("key") or tol["key"] == taint.get("key")
    return tol.get("key", "") == taint.get("key") and tol.get("value", "") == taint.get("value", "")


def untolerated(tols, taints, effects):
    return any(t.get("effect") in effects and not any(tolerates(x, t) for x in tols) for t in taints)


def requirement_matches(req, value, present):
    op, values = req["operator"], req.get("values") or []
    if op == "In":
        return present and value in values
    if op == "NotIn":
        return not present or value not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt"):
        try:
            have, want = int(value), int(values[0])
        except (TypeError, ValueError, IndexError):
            return False
        return present and (have > want if op == "Gt" else have < want)
    return False


def term_matches(term, node):
    exprs, fields = term.get("matchExpressions") or [], term.get("matchFields") or []
    if not exprs and not fields:
        return False
    for r in exprs:  # AFF-8: a malformed requirement makes the whole term match nothing
        op, n = r["operator"], len(r.get("values") or [])
        if op in ("In", "NotIn") and n == 0 or op in ("Exists", "DoesNotExist") and n or op in ("Gt", "Lt") and n != 1:
            return False
    labels = node["metadata"].get("labels") or {}
    for r in exprs:
        if not requirement_matches(r, labels.get(r["key"]), r["key"] in labels):
            return False
    for r in fields:
        # AFF-9: In or NotIn with one value; the node is a field set holding only metadata.name,
        # any other key reads as "". A malformed entry makes the whole term match nothing (AFF-8).
        if r["operator"] not in ("In", "NotIn") or len(r.get("values") or []) != 1:
            return False
        value = node["metadata"]["name"] if r["key"] == "metadata.name" else ""
        if not requirement_matches(r, value, True):
            return False
    return True


def placement_matches(spec, node):
    labels = node["metadata"].get("labels") or {}
    for k, v in (spec.get("nodeSelector") or {}).items():
        if labels.get(k) != v:
            return False
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if required is not None:
        return any(term_matches(t, node) for t in required.get("nodeSelectorTerms") or [])
    return True


def eligibility(ds, node):
    """(shouldRun, shouldContinueRunning) of ELIG-1."""
    spec = ds["spec"]["template"].get("spec") or {}
    if spec.get("nodeName") and spec["nodeName"] != node["metadata"]["name"]:
        return False, False
    if not placement_matches(spec, node):
        return False, False
    tols, taints = merged_tolerations(spec), (node.get("spec") or {}).get("taints") or []
    if untolerated(tols, taints, {"NoExecute"}):
        return False, False
    return not untolerated(tols, taints, {"NoSchedule"}), True


def controlled_by(obj, ds, release):
    """OWN-1, OWN-7, VER-4: the first controller reference names ds, by uid alone in the
    releases that own so, else by uid, and the object's namespace, kind and name."""
    for ref in obj["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            if ref.get("uid") != ds["metadata"].get("uid"):
                return False
            return owns_by_uid_alone(release) or (obj["metadata"].get("namespace") == ds["metadata"]["namespace"]
                                                  and ref.get("kind") == "DaemonSet" and ref.get("name") == ds["metadata"]["name"])
    return False


def selector_converts(sel):
    """SEL-6: every requirement of a label selector has a known operator and fitting values."""
    for r in (sel or {}).get("matchExpressions") or []:
        op, values = r.get("operator"), r.get("values") or []
        if op in ("In", "NotIn") and not values or op in ("Exists", "DoesNotExist") and values:
            return False
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


def selector_matches(ds, labels):
    """SEL-1: a nil selector matches nothing; otherwise matchLabels AND matchExpressions."""
    sel = ds["spec"].get("selector")
    if sel is None:
        return False
    if not all(labels.get(k) == v for k, v in (sel.get("matchLabels") or {}).items()):
        return False
    return all(requirement_matches(r, labels.get(r["key"]), r["key"] in labels) for r in sel.get("matchExpressions") or [])


def current_hash(ds, revisions):
    """The hash of the newest revision ds controls: in its namespace, by the uid of the
    controller reference alone in every release (OWN-12)."""
    owned = [r for r in revisions if r["metadata"].get("namespace") == ds["metadata"]["namespace"]
             and any(ref.get("controller") and ref.get("uid") == ds["metadata"].get("uid")
                     for ref in r["metadata"].get("ownerReferences") or [])]
    if not owned:
        raise NotImplementedError("computing a revision hash without a ControllerRevision")
    newest = max(owned, key=lambda r: r.get("revision", 0))
    return newest["metadata"]["labels"]["controller-revision-hash"]


SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def generate_name(name):
    """POD-1: "<name>-", or the bare name when that is not a valid name prefix."""
    prefix = name + "-"
    masked = prefix[:-1] + "a"  # a prefix may end in a dash: validate it as if it did not
    if len(masked) <= 253 and SUBDOMAIN.fullmatch(masked):
        return prefix
    return name


def new_pod(ds, node, hash_):
    tpl = ds["spec"]["template"]
    meta = tpl.get("metadata") or {}
    labels = dict(meta.get("labels") or {})
    labels["controller-revision-hash"] = hash_
    generation = (ds["metadata"].get("annotations") or {}).get("deprecated.daemonset.template.generation")
    if generation is not None and re.fullmatch(r"[+-]?[0-9]+", generation) and -2**63 <= int(generation) < 2**63:
        labels["pod-template-generation"] = str(int(generation))  # POD-3: canonical decimal
    pod_meta = {"generateName": generate_name(ds["metadata"]["name"]), "namespace": ds["metadata"]["namespace"],
                "labels": labels,
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds["metadata"]["name"],
                                     "uid": ds["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]}
    if meta.get("annotations"):
        pod_meta["annotations"] = dict(meta["annotations"])
    if meta.get("finalizers"):
        pod_meta["finalizers"] = list(meta["finalizers"])  # POD-4: nothing else of the metadata
    spec = copy.deepcopy(tpl.get("spec") or {})
    spec["tolerations"] = merged_tolerations(spec)
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
    affinity = spec.setdefault("affinity", {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    required = node_affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    required["nodeSelectorTerms"] = [term]
    return {"metadata": pod_meta, "spec": spec, "status": {}}


def ready(pod):
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


def plan_one(ds, nodes, pods, revisions, release):
    ns, sel = ds["metadata"]["namespace"], ds["spec"].get("selector")
    empty = lambda: {"namespace": ns, "name": ds["metadata"]["name"], "revisionHash": "", "status": None, "create": [], "delete": [], "adopt": [], "release": []}
    if sel is not None and not sel.get("matchLabels") and not sel.get("matchExpressions"):
        return dict(empty(), skipped="SYNC-3")  # selecting everything: the sync does nothing
    if not selector_converts(sel):
        return dict(empty(), skipped="SYNC-5")  # the selector does not convert: nothing at all
    hash_ = current_hash(ds, revisions)
    released = []
    for p in pods:
        if p["metadata"].get("namespace") != ns or p["metadata"].get("deletionTimestamp"):
            continue
        matches = selector_matches(ds, p["metadata"].get("labels") or {})
        if controlled_by(p, ds, release) and not matches:
            released.append({"namespace": ns, "name": p["metadata"]["name"]})  # OWN-3
        elif matches and not any(ref.get("controller") for ref in p["metadata"].get("ownerReferences") or []):
            raise NotImplementedError("adopting orphans (the diff profile)")
    if (ds["spec"].get("minReadySeconds") or 0) != 0:
        raise NotImplementedError("minReadySeconds")
    mine = [p for p in pods if p["metadata"].get("namespace") == ns and controlled_by(p, ds, release)
            and selector_matches(ds, p["metadata"].get("labels") or {})]
    by_node = {}
    for p in mine:
        by_node.setdefault((p.get("spec") or {}).get("nodeName", ""), []).append(p)
    creates, deletes = [], []
    status = {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
              "numberReady": 0, "observedGeneration": ds["metadata"].get("generation", 0),
              "updatedNumberScheduled": 0, "numberAvailable": 0, "numberUnavailable": 0}
    for node in sorted(nodes, key=lambda n: n["metadata"]["name"]):
        name = node["metadata"]["name"]
        run, keep = eligibility(ds, node)
        here = by_node.get(name, [])
        if any((p.get("status") or {}).get("phase") in ("Failed", "Succeeded") for p in here) or len(here) > 1:
            raise NotImplementedError("terminal or duplicate pods (the diff profile)")
        if run:
            status["desiredNumberScheduled"] += 1
            if here:
                status["currentNumberScheduled"] += 1
                pod = here[0]
                if ready(pod):
                    status["numberReady"] += 1
                    status["numberAvailable"] += 1
                if (pod["metadata"].get("labels") or {}).get("controller-revision-hash") == hash_:
                    status["updatedNumberScheduled"] += 1
            else:
                creates.append({"node": name, "reason": "MissingPod", "pod": new_pod(ds, name, hash_)})
        elif here:
            status["numberMisscheduled"] += 1
        if here and not keep:
            deletes += [{"namespace": ns, "name": p["metadata"]["name"], "node": name, "reason": "NodeNotEligible"}
                        for p in here]
    status["numberUnavailable"] = max(0, status["desiredNumberScheduled"] - status["numberAvailable"])
    return {"namespace": ns, "name": ds["metadata"]["name"], "revisionHash": hash_, "create": creates,
            "delete": deletes, "adopt": [], "release": released, "status": status}


def answer(request):
    try:
        release = parse_release(request["kubernetes"]) if request.get("kubernetes") else PROTOCOL_DEFAULT
    except (TypeError, ValueError) as e:
        return {"error": "kubernetes: %s" % e}
    if request.get("profile") not in CLAIMED:
        return {"skip": "profile %s is not implemented" % request.get("profile")}
    # burstLimit 0 (or absent) is the controller's cap of 250, a negative one no cap (D-18).
    # This implementation caps nothing, so it declines a case where a list would reach the cap.
    cap = request.get("burstLimit") or 250
    objs = request["objects"]
    kinds = lambda k: [o for o in objs if o.get("kind") == k]
    try:
        plans = [plan_one(ds, kinds("Node"), kinds("Pod"), kinds("ControllerRevision"), release)
                 for ds in sorted(kinds("DaemonSet"), key=lambda d: (d["metadata"]["namespace"], d["metadata"]["name"]))]
    except NotImplementedError as e:
        return {"skip": str(e)}
    if cap > 0 and any(len(p["create"]) > cap or len(p["delete"]) > cap for p in plans):
        return {"skip": "the burst cap is not implemented"}
    return {"daemonSets": plans}


def main():
    for line in sys.stdin:
        if line.strip():
            request = json.loads(line)
            reply = answer(request)
            if "id" in request:
                reply = {"id": request["id"], **reply}
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
