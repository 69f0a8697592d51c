#!/usr/bin/env bash
# The kubectl conformance session: what a user and a GitOps tool type against an API server that
# serves the product's CRDs. KubectlSessionE2E runs it against standalone mode's embedded API server
# and against the real kube-apiserver, one step at a time, and compares the two transcripts (see
# docs/conformance.md for the normalisation and for the differences that stay).
#
# Each "# step: NAME" line starts a step; a step runs in its own bash and sees only these variables:
#   NS     a namespace of its own (created by the first steps)
#   RUN    a suffix for cluster-scoped names (BatchNodes), unique per run
#   WORK   a scratch folder (manifests, watch output), empty at the start
# and KUBECONFIG. By hand: NS=demo RUN=1 WORK=$(mktemp -d) bash kubectl-session.sh
# (the steps also run in order as one script).
set -uo pipefail

# step: version
kubectl version -o yaml | sed -n '/^serverVersion:/,$p'

# step: api-versions
kubectl api-versions

# step: api-resources
kubectl api-resources

# step: api-resources-product
kubectl api-resources --api-group=batch.octomy.io -o wide

# step: api-resources-cluster-scoped-names
kubectl api-resources --namespaced=false -o name

# step: create-namespace
kubectl create namespace "$NS"

# step: get-namespace
kubectl get namespace "$NS" --show-labels

# step: write-manifests
mkdir -p "$WORK/app"
cat > "$WORK/app/jobs.yaml" <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata:
  name: solve-a
  labels: {app: conf, tier: gold}
spec:
  type: mesh-export
  group: simulator
  locks: [subject/ernie]
  resources:
    requests: {octomy.io/cpu-milli: 2000, example.com/su2-processes: 4}
    limits: {octomy.io/cpu-milli: 4000, example.com/su2-processes: 4}
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, 'echo solve']}]
---
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata:
  name: solve-b
  labels: {app: conf, tier: silver}
spec:
  type: mesh-export
  after: [solve-a]
  resources:
    requests: {octomy.io/cpu-milli: 1000}
    limits: {octomy.io/cpu-milli: 1000}
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, 'echo solve']}]
EOF
cat > "$WORK/app/render.yaml" <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata:
  name: render-c
  labels: {app: conf}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, 'echo render']}]
EOF
cat > "$WORK/app/settings.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {app: conf}
data: {level: "3"}
EOF
ls "$WORK/app"

# step: apply-directory
kubectl apply -n "$NS" -f "$WORK/app/"

# step: apply-directory-unchanged
kubectl apply -n "$NS" -f "$WORK/app/"

# step: apply-node
kubectl apply -f - <<EOF
apiVersion: batch.octomy.io/v1alpha1
kind: BatchNode
metadata:
  name: ws-$RUN
  labels: {session: "$NS"}
spec:
  mode: Background
  ownMode: Drone
  executor: Process
  resources: {example.com/su2-processes: 16}
EOF

# step: get-table
kubectl get bj -n "$NS"

# step: get-wide
kubectl get bj -n "$NS" -o wide

# step: get-by-every-name
kubectl get batchjob solve-a -n "$NS" -o name
kubectl get batchjobs.batch.octomy.io solve-a -n "$NS" -o name
kubectl get batchjobs.v1alpha1.batch.octomy.io solve-a -n "$NS" -o name
kubectl get bj/solve-a bj/solve-b -n "$NS" -o name
# the real server lists a category's kinds in no fixed order, so only the objects are compared
kubectl get octomy -n "$NS" -o name | sort

# step: get-yaml
kubectl get bj solve-a -n "$NS" -o yaml

# step: get-json
kubectl get bj solve-b -n "$NS" -o json

# step: get-list-yaml
kubectl get bj -n "$NS" -l tier=silver -o yaml

# step: get-name
kubectl get bj,cm -n "$NS" -l app=conf -o name

# step: get-custom-columns
kubectl get bj -n "$NS" -o custom-columns='NAME:.metadata.name,TYPE:.spec.type,CPU:.spec.resources.requests.octomy\.io/cpu-milli,AFTER:.spec.after'

# step: get-jsonpath
kubectl get bj -n "$NS" -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.metadata.generation}{"\t"}{.spec.locks}{"\n"}{end}'

# step: get-jsonpath-filter
kubectl get bj -n "$NS" -o jsonpath='{.items[?(@.spec.group=="simulator")].metadata.name}{"\n"}'

# step: get-go-template
kubectl get bj -n "$NS" -o go-template='{{range .items}}{{.metadata.name}} {{index .metadata.labels "app"}}{{"\n"}}{{end}}'

# step: get-show-labels-and-label-columns
kubectl get bj -n "$NS" --show-labels
kubectl get bj -n "$NS" -L tier,app --sort-by=.metadata.name

# step: get-sort-by
kubectl get bj -n "$NS" --sort-by=.spec.type -o custom-columns=NAME:.metadata.name

# step: get-several-kinds
kubectl get bj,cm -n "$NS" -l app=conf

# step: get-node-table
kubectl get bn "ws-$RUN"
kubectl get bn "ws-$RUN" -o wide

# step: get-all-namespaces
kubectl get bj -A -l app=conf

# step: get-missing
kubectl get bj nope -n "$NS"

# step: get-missing-ignored
kubectl get bj nope -n "$NS" --ignore-not-found
echo "exit $?"

# step: get-empty
kubectl get bj -n "$NS" -l app=none

# step: get-configmap-and-secret
kubectl get configmap settings -n "$NS"
kubectl create secret generic creds -n "$NS" --from-literal=token=abc
kubectl get secret creds -n "$NS"

# step: get-service-accounts-and-pods
kubectl get serviceaccounts,pods -n "$NS" -o name

# step: get-core-yaml
kubectl get configmap settings -n "$NS" -o yaml
kubectl get namespace "$NS" -o yaml

# step: write-status
kubectl patch bj solve-a -n "$NS" --subresource=status --type=merge -p '{"status":{"phase":"Queued","serviceClass":"Burstable","reason":"WaitingForCapacity","message":"waiting for capacity: need 2000 octomy.io/cpu-milli","effectivePriority":100,"conditions":[{"type":"Admitted","status":"False","reason":"WaitingForCapacity","message":"not yet","lastTransitionTime":"2025-01-01T00:00:00Z"}]}}'
kubectl get bj solve-a -n "$NS" -o wide

# step: status-in-a-manifest-is-ignored
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: render-c, labels: {app: conf}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, 'echo render']}]
status: {phase: Succeeded}
EOF
kubectl get bj render-c -n "$NS" -o jsonpath='{.status}{"|"}{.metadata.generation}{"\n"}'

# step: events-create
uid=$(kubectl get bj solve-a -n "$NS" -o jsonpath='{.metadata.uid}')
kubectl create -n "$NS" -f - <<EOF
apiVersion: v1
kind: Event
metadata: {name: solve-a.waiting}
involvedObject: {apiVersion: batch.octomy.io/v1alpha1, kind: BatchJob, name: solve-a, namespace: "$NS", uid: "$uid"}
reason: WaitingForCapacity
message: "waiting for capacity: need 2000 octomy.io/cpu-milli"
type: Normal
source: {component: octomy-batch-controller}
firstTimestamp: "2025-01-01T00:00:00Z"
lastTimestamp: "2025-01-01T00:00:00Z"
count: 3
---
apiVersion: v1
kind: Event
metadata: {name: solve-a.overlimit}
involvedObject: {apiVersion: batch.octomy.io/v1alpha1, kind: BatchJob, name: solve-a, namespace: "$NS", uid: "$uid"}
reason: OverLimit
message: "measured 5000 octomy.io/cpu-milli, above its limit of 4000"
type: Warning
source: {component: octomy-batch-agent, host: ws-7}
firstTimestamp: "2025-01-01T00:00:00Z"
lastTimestamp: "2025-01-01T00:00:00Z"
count: 1
EOF

# step: get-events
kubectl get events -n "$NS"

# step: get-events-wide
kubectl get events -n "$NS" -o wide

# step: get-events-field-selectors
kubectl get events -n "$NS" --field-selector type=Warning -o name
kubectl get events -n "$NS" --field-selector involvedObject.name=solve-a,reason=WaitingForCapacity -o name
kubectl get events.v1.events.k8s.io -n "$NS" -o custom-columns=NAME:.metadata.name,REASON:.reason,REGARDING:.regarding.name,NOTE:.note

# step: kubectl-events
kubectl events -n "$NS"
kubectl events -n "$NS" --for bj/solve-a --types=Warning

# step: events-in-both-versions
kubectl create -n "$NS" -f - <<EOF
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: render-c.started}
regarding: {apiVersion: batch.octomy.io/v1alpha1, kind: BatchJob, name: render-c, namespace: "$NS"}
reason: Started
note: "started on ws-7"
type: Normal
eventTime: "2025-01-01T00:00:00.000000Z"
reportingController: octomy.io/agent
reportingInstance: ws-7
action: Start
EOF
kubectl get events -n "$NS" --field-selector involvedObject.name=render-c -o yaml
kubectl get events.v1.events.k8s.io -n "$NS" --field-selector regarding.name=render-c,reportingController=octomy.io/agent -o wide
kubectl get events.v1.events.k8s.io -n "$NS" --field-selector involvedObject.name=render-c
: > "$WORK/event-watch.out"
kubectl get events.v1.events.k8s.io render-c.started -n "$NS" -w -o custom-columns=NAME:.metadata.name,NOTE:.note > "$WORK/event-watch.out" 2>&1 &
watcher=$!
for _ in $(seq 100); do grep -q "started on" "$WORK/event-watch.out" && break; sleep 0.1; done
kubectl patch event render-c.started -n "$NS" --type=merge -p '{"message":"running on ws-7"}'
for _ in $(seq 100); do grep -q "running on" "$WORK/event-watch.out" && break; sleep 0.1; done
kill "$watcher"
wait "$watcher" 2> /dev/null
cat "$WORK/event-watch.out"
kubectl patch events.v1.events.k8s.io render-c.started -n "$NS" --type=strategic -p '{"series":{"count":2,"lastObservedTime":"2025-01-01T00:10:00.000000Z"}}'
kubectl label events.v1.events.k8s.io render-c.started -n "$NS" seen=yes
kubectl patch events.v1.events.k8s.io render-c.started -n "$NS" --type=merge -p '{"note":"finished on ws-7","deprecatedCount":5}'
kubectl get event render-c.started -n "$NS" -o jsonpath='{.message}{"|"}{.reportingComponent}{"|"}{.involvedObject.name}{"|"}{.series.count}{"|"}{.metadata.labels}{"\n"}'
kubectl delete event render-c.started -n "$NS"
kubectl get events.v1.events.k8s.io render-c.started -n "$NS"
kubectl create -n "$NS" -f - <<EOF
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: render-c.untimed}
regarding: {kind: BatchJob, name: render-c, namespace: "$NS"}
reason: Started
note: "no eventTime"
type: Normal
deprecatedCount: 2
EOF
kubectl create -n "$NS" -f - <<EOF
apiVersion: v1
kind: Event
metadata: {name: render-c.elsewhere}
involvedObject: {kind: BatchJob, name: render-c, namespace: other}
reason: Started
EOF

# step: describe-job
kubectl describe bj solve-a -n "$NS"

# step: describe-node
kubectl describe bn "ws-$RUN"

# step: describe-configmap
kubectl describe configmap settings -n "$NS"

# step: describe-by-label
kubectl describe bj -n "$NS" -l tier=silver

# step: explain
kubectl explain bj

# step: explain-field
kubectl explain bj.spec.resources.requests
kubectl explain batchnodes.spec.mode --api-version=batch.octomy.io/v1alpha1

# step: explain-recursive
kubectl explain bj.status --recursive

# step: explain-metadata
kubectl explain bj.metadata

# step: explain-missing-field
kubectl explain bj.spec.nothing

# step: diff-changed
cat > "$WORK/render-changed.yaml" <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: render-c, labels: {app: conf, tier: bronze}}
spec:
  type: render
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, 'echo render']}]
EOF
kubectl diff -n "$NS" -f "$WORK/render-changed.yaml"

# step: diff-unchanged
kubectl diff -n "$NS" -f "$WORK/app/render.yaml"

# step: diff-server-side
kubectl diff -n "$NS" --server-side -f "$WORK/render-changed.yaml"

# step: apply-dry-run-server
kubectl apply -n "$NS" --dry-run=server -f "$WORK/render-changed.yaml" -o yaml
kubectl get bj render-c -n "$NS" -o jsonpath='{.spec.type}{"|"}{.metadata.labels}{"\n"}'

# step: create-dry-run-server
kubectl create -n "$NS" --dry-run=server -f - -o name <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: never-stored}
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: main, image: busybox}]}}
EOF
kubectl get bj never-stored -n "$NS" --ignore-not-found -o name

# step: apply-view-last-applied
kubectl apply view-last-applied bj/render-c -n "$NS"

# step: server-side-apply
kubectl apply -n "$NS" --server-side -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: sync-d, labels: {app: conf}}
spec:
  type: sync
  group: pipeline
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, 'echo sync']}]
EOF

# step: server-side-apply-second-manager-conflict
kubectl apply -n "$NS" --server-side --field-manager=gitops -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: sync-d, labels: {owner: gitops}}
spec:
  group: nightly
EOF

# step: server-side-apply-second-manager-shared-field
kubectl apply -n "$NS" --server-side --field-manager=gitops -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: sync-d, labels: {owner: gitops}}
spec:
  type: sync
EOF

# step: server-side-apply-force-conflicts
kubectl apply -n "$NS" --server-side --field-manager=gitops --force-conflicts -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: sync-d, labels: {owner: gitops}}
spec:
  type: sync
  group: nightly
EOF
kubectl get bj sync-d -n "$NS" -o jsonpath='{.spec.group}{"|"}{.metadata.labels}{"\n"}'

# step: server-side-apply-lost-field-conflicts
kubectl apply -n "$NS" --server-side -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: sync-d, labels: {app: conf}}
spec:
  type: sync
  group: pipeline
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [sh, -c, 'echo sync']}]
EOF

# step: managed-fields
kubectl get bj sync-d -n "$NS" --show-managed-fields -o jsonpath='{range .metadata.managedFields[*]}{.manager}{" "}{.operation}{" "}{.apiVersion}{" "}{.fieldsType}{" "}{.fieldsV1}{"\n"}{end}' | sort

# step: server-side-apply-dry-run
kubectl apply -n "$NS" --server-side --dry-run=server --field-manager=gitops -f - -o jsonpath='{.spec.group}{"\n"}' <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: sync-d}
spec:
  group: weekly
EOF
kubectl get bj sync-d -n "$NS" -o jsonpath='{.spec.group}{"\n"}'

# step: server-side-apply-remove-owned-field
kubectl apply -n "$NS" --server-side --field-manager=gitops -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: sync-d, labels: {owner: gitops}}
spec:
  type: sync
EOF
kubectl get bj sync-d -n "$NS" -o jsonpath='{.spec.group}{"|"}{.spec.type}{"\n"}'

# step: watch
: > "$WORK/watch.out"
kubectl get bj -n "$NS" -l app=conf -w --output-watch-events --show-labels > "$WORK/watch.out" 2>&1 &
watcher=$!
for _ in $(seq 100); do grep -q render-c "$WORK/watch.out" && break; sleep 0.1; done
kubectl label bj render-c -n "$NS" watched=yes > /dev/null
for _ in $(seq 100); do grep -q watched=yes "$WORK/watch.out" && break; sleep 0.1; done
kill "$watcher"
wait "$watcher" 2> /dev/null
sort "$WORK/watch.out"

# step: watch-single-object-as-json
: > "$WORK/watch1.out"
kubectl get bj render-c -n "$NS" -w -o jsonpath='{.metadata.name}{" "}{.metadata.labels.watched}{"\n"}' > "$WORK/watch1.out" 2>&1 &
watcher=$!
for _ in $(seq 100); do grep -q render-c "$WORK/watch1.out" && break; sleep 0.1; done
kubectl label bj render-c -n "$NS" watched=twice --overwrite > /dev/null
for _ in $(seq 100); do grep -q twice "$WORK/watch1.out" && break; sleep 0.1; done
kill "$watcher"
wait "$watcher" 2> /dev/null
cat "$WORK/watch1.out"

# step: watch-raw-with-initial-events
kubectl get --raw "/apis/batch.octomy.io/v1alpha1/namespaces/$NS/batchjobs?watch=1&labelSelector=tier%3Dsilver&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=2"
echo

# step: wait-condition
kubectl wait -n "$NS" bj/solve-a --for=condition=Admitted=false --timeout=10s

# step: wait-jsonpath
kubectl wait -n "$NS" bj/solve-a --for=jsonpath='{.status.phase}'=Queued --timeout=10s

# step: wait-timeout
kubectl wait -n "$NS" bj/solve-b --for=condition=Admitted --timeout=1s

# step: wait-for-change
(sleep 1; kubectl patch bj solve-b -n "$NS" --subresource=status --type=merge -p '{"status":{"phase":"Admitted","conditions":[{"type":"Admitted","status":"True","reason":"Admitted","message":"on ws-7","lastTransitionTime":"2025-01-01T00:00:00Z"}]}}' > /dev/null) &
kubectl wait -n "$NS" bj/solve-b --for=condition=Admitted --timeout=20s
wait

# step: wait-by-label
kubectl wait -n "$NS" bj -l tier --for=jsonpath='{.spec.type}'=mesh-export --timeout=10s

# step: patch-merge
kubectl patch bj render-c -n "$NS" --type=merge -p '{"spec":{"type":"render","group":"gpu"}}'
kubectl get bj render-c -n "$NS" -o jsonpath='{.spec.type}{" "}{.spec.group}{" "}{.metadata.generation}{"\n"}'

# step: patch-json
kubectl patch bj render-c -n "$NS" --type=json -p '[{"op":"add","path":"/spec/locks","value":["scene/7"]},{"op":"replace","path":"/spec/group","value":"cpu"},{"op":"test","path":"/spec/type","value":"render"}]'
kubectl get bj render-c -n "$NS" -o jsonpath='{.spec.locks}{" "}{.spec.group}{"\n"}'

# step: patch-json-failed-test
kubectl patch bj render-c -n "$NS" --type=json -p '[{"op":"test","path":"/spec/type","value":"other"}]'

# step: patch-json-bad-path
kubectl patch bj render-c -n "$NS" --type=json -p '[{"op":"replace","path":"/spec/nothing/deeper","value":1}]'

# step: patch-strategic-custom-resource
kubectl patch bj render-c -n "$NS" -p '{"spec":{"group":"strategic"}}'

# step: patch-strategic-explicit-custom-resource
kubectl patch bj render-c -n "$NS" --type=strategic -p '{"spec":{"group":"strategic"}}'

# step: patch-strategic-configmap
kubectl patch configmap settings -n "$NS" -p '{"data":{"level":"4"}}'
kubectl get configmap settings -n "$NS" -o jsonpath='{.data}{"\n"}'

# step: patch-invalid-value
kubectl patch bj render-c -n "$NS" --type=merge -p '{"spec":{"group":"Bad Group"}}'

# step: patch-dry-run
kubectl patch bj render-c -n "$NS" --type=merge --dry-run=server -p '{"spec":{"group":"dry"}}' -o jsonpath='{.spec.group}{"\n"}'
kubectl get bj render-c -n "$NS" -o jsonpath='{.spec.group}{"\n"}'

# step: patch-missing
kubectl patch bj nope -n "$NS" --type=merge -p '{"spec":{"group":"x"}}'

# step: patch-cluster-scoped
kubectl patch bn "ws-$RUN" --type=merge -p '{"spec":{"mode":"Interactive"}}'
kubectl get bn "ws-$RUN" -o jsonpath='{.spec.mode}{"\n"}'

# step: patch-no-change
kubectl patch bn "ws-$RUN" --type=merge -p '{"spec":{"mode":"Interactive"}}'

# step: label-and-annotate
kubectl label bj render-c -n "$NS" tier=bronze
kubectl label bj render-c -n "$NS" tier=gold
kubectl label bj render-c -n "$NS" tier=gold --overwrite
kubectl annotate bj render-c -n "$NS" note='rendered by hand'
kubectl label bj render-c -n "$NS" tier-
kubectl get bj render-c -n "$NS" -o jsonpath='{.metadata.labels}{" "}{.metadata.annotations.note}{"\n"}'

# step: edit
EDITOR="sed -i s/group:.cpu/group:\ edited/" kubectl edit bj render-c -n "$NS"
kubectl get bj render-c -n "$NS" -o jsonpath='{.spec.group}{"\n"}'

# step: replace
kubectl get bj render-c -n "$NS" -o yaml | sed 's/group: edited/group: replaced/' | kubectl replace -f -
kubectl get bj render-c -n "$NS" -o jsonpath='{.spec.group}{"\n"}'

# step: replace-stale
kubectl get bj render-c -n "$NS" -o yaml > "$WORK/stale.yaml"
kubectl label bj render-c -n "$NS" fresh=yes > /dev/null
sed 's/group: replaced/group: stale/' "$WORK/stale.yaml" | kubectl replace -f -

# step: create-existing
kubectl create -n "$NS" -f "$WORK/app/render.yaml"

# step: create-generate-name
kubectl create -n "$NS" -o name -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {generateName: gen-, labels: {made: generated}}
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: main, image: busybox}]}}
EOF
kubectl get bj -n "$NS" -l made=generated -o jsonpath='{.items[0].metadata.generateName}{"\n"}'

# step: label-selectors
kubectl get bj -n "$NS" -l app=conf -o name
kubectl get bj -n "$NS" -l 'tier in (gold,silver)' -o name
kubectl get bj -n "$NS" -l '!tier' -o name
kubectl get bj -n "$NS" -l 'tier,tier!=gold' -o name
kubectl get bj -n "$NS" -l 'tier notin (gold)' -o name
kubectl get bj -n "$NS" -l 'app=conf,owner=gitops' -o name

# step: label-selector-invalid
kubectl get bj -n "$NS" -l 'tier in gold'
kubectl get bj -n "$NS" -l 'tier=-gold-'
kubectl get bj -n "$NS" -l 'tier gold'

# step: field-selectors
kubectl get bj -n "$NS" --field-selector metadata.name=solve-b -o name
kubectl get bj -n "$NS" --field-selector metadata.name!=solve-b -l app=conf -o name
kubectl get bj -A --field-selector metadata.namespace="$NS",metadata.name=render-c -o name
kubectl get bn --field-selector metadata.name="ws-$RUN" -o name

# step: field-selector-unsupported
kubectl get bj -n "$NS" --field-selector spec.group=pipeline

# step: chunked-list
for i in 1 2 3 4 5 6 7; do
  kubectl create configmap "page-$i" -n "$NS" --from-literal=i="$i" -o name
done
kubectl label configmap page-1 page-2 page-3 page-4 page-5 page-6 page-7 -n "$NS" paged=yes > /dev/null
kubectl get configmaps -n "$NS" -l paged=yes --chunk-size=2
kubectl get configmaps -n "$NS" -l paged=yes --chunk-size=2 -o name -v=6 2>&1 | grep -c 'limit=2'

# step: chunked-list-raw
kubectl get --raw "/api/v1/namespaces/$NS/configmaps?labelSelector=paged%3Dyes&limit=3" > "$WORK/page1.json"
kubectl get -f "$WORK/page1.json" -o name 2> /dev/null || true
grep -o '"remainingItemCount":[0-9]*' "$WORK/page1.json"
token=$(sed -n 's/.*"continue":"\([^"]*\)".*/\1/p' "$WORK/page1.json")
kubectl get --raw "/api/v1/namespaces/$NS/configmaps?labelSelector=paged%3Dyes&limit=3&continue=$token" | grep -o '"name":"page-[0-9]"'

# step: auth-can-i
kubectl auth can-i create batchjobs -n "$NS"
kubectl auth can-i patch batchjobs/status -n "$NS"
kubectl auth can-i delete batchnodes
kubectl auth can-i '*' '*'
kubectl auth can-i get /healthz

# step: auth-can-i-list
kubectl auth can-i --list -n "$NS"

# step: auth-whoami
kubectl auth whoami -o jsonpath='{.status.userInfo.groups}{"\n"}'

# step: bad-yaml
printf 'apiVersion: batch.octomy.io/v1alpha1\nkind: BatchJob\nmetadata: {name: broken\nspec: [\n' | kubectl apply -n "$NS" -f -

# step: bad-unknown-kind
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJb
metadata: {name: typo}
spec: {}
EOF

# step: bad-unknown-version
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1
kind: BatchJob
metadata: {name: typo}
spec: {}
EOF

# step: bad-missing-kind
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
metadata: {name: nokind}
spec: {}
EOF

# step: bad-missing-name
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {labels: {a: b}}
spec:
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF

# step: bad-name
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: Bad_Name}
spec:
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF

# step: bad-label
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: bad-label, labels: {tier: -gold-, example..com/x: y}}
spec:
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF

# step: bad-schema-type-and-enum
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: bad-schema}
spec:
  locks: 5
  resources: {requests: {octomy.io/cpu-milli: 500m}}
  template: {spec: {containers: [{name: main, image: busybox}]}}
---
apiVersion: batch.octomy.io/v1alpha1
kind: BatchNode
metadata: {name: bad-node}
spec: {mode: Turbo, executor: Docker}
EOF

# step: bad-cel-rule
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: bad-cel}
spec:
  resources:
    requests: {octomy.io/cpu-milli: 4000}
    limits: {octomy.io/cpu-milli: 1000}
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF

# step: bad-missing-required
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: no-template}
spec: {type: x}
EOF

# step: bad-unknown-field-strict
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: unknown-field}
spec:
  priority: 5
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF

# step: bad-unknown-field-warn
kubectl apply -n "$NS" --validate=warn -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: unknown-field}
spec:
  priority: 5
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF
kubectl get bj unknown-field -n "$NS" -o jsonpath='{.spec}{"\n"}'

# step: bad-unknown-field-ignored
kubectl apply -n "$NS" --validate=false -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: unknown-field}
spec:
  priority: 6
  type: ignored
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF
kubectl get bj unknown-field -n "$NS" -o jsonpath='{.spec.type}{"\n"}'

# step: bad-unknown-field-server-side-apply
kubectl apply -n "$NS" --server-side -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: unknown-field}
spec:
  priority: 7
EOF

# step: bad-duplicate-field
kubectl create -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: duplicate-field}
spec:
  type: one
  type: two
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF

# step: bad-namespace-mismatch
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: elsewhere, namespace: other-place}
spec:
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF

# step: bad-missing-namespace
kubectl create -n "does-not-exist-$RUN" -f "$WORK/app/render.yaml"

# step: bad-too-long-annotation
{ printf '{"metadata":{"annotations":{"big":"'; head -c 300000 /dev/zero | tr '\0' a; printf '"}}}'; } > "$WORK/big.json"
kubectl patch bj render-c -n "$NS" --type=merge --patch-file="$WORK/big.json"

# step: bad-empty-input
printf '' | kubectl apply -n "$NS" -f -

# step: bad-list-of-objects
kubectl apply -n "$NS" -f - <<'EOF'
apiVersion: v1
kind: List
items:
- apiVersion: batch.octomy.io/v1alpha1
  kind: BatchJob
  metadata: {name: from-list, labels: {app: conf}}
  spec:
    template: {spec: {containers: [{name: main, image: busybox}]}}
- apiVersion: batch.octomy.io/v1alpha1
  kind: BatchJob
  metadata: {name: Bad-From-List}
  spec:
    template: {spec: {containers: [{name: main, image: busybox}]}}
EOF

# step: kustomize
mkdir -p "$WORK/kust"
cp "$WORK/app/render.yaml" "$WORK/kust/"
cat > "$WORK/kust/kustomization.yaml" <<'EOF'
namePrefix: k-
labels:
- pairs: {deployed-by: kustomize}
  includeSelectors: false
resources: [render.yaml]
EOF
kubectl apply -n "$NS" -k "$WORK/kust"
kubectl get bj -n "$NS" -l deployed-by=kustomize -o name

# step: prune-with-allowlist
rm "$WORK/app/render.yaml"
kubectl apply -n "$NS" -f "$WORK/app/" --prune -l app=conf --prune-allowlist=batch.octomy.io/v1alpha1/BatchJob
kubectl get bj -n "$NS" -l app=conf -o name

# step: prune-default-allowlist
rm "$WORK/app/settings.yaml"
kubectl apply -n "$NS" -f "$WORK/app/" --prune -l app=conf
kubectl get configmap settings -n "$NS" --ignore-not-found -o name

# step: owners
uid=$(kubectl get bj solve-a -n "$NS" -o jsonpath='{.metadata.uid}')
for c in background foreground orphan; do
  kubectl create -n "$NS" -f - -o name <<EOF
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: owner-$c, labels: {role: owner}}
spec:
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF
  owner=$(kubectl get bj "owner-$c" -n "$NS" -o jsonpath='{.metadata.uid}')
  kubectl create -n "$NS" -f - -o name <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: owned-by-$c
  ownerReferences:
  - {apiVersion: batch.octomy.io/v1alpha1, kind: BatchJob, name: owner-$c, uid: "$owner", blockOwnerDeletion: true}
data: {owner: $c}
EOF
done
test -n "$uid"

# step: delete-cascade-background
kubectl delete bj owner-background -n "$NS"
# whether wait still sees the ConfigMap depends on how fast the collector is: print what is left
kubectl wait --for=delete configmap/owned-by-background -n "$NS" --timeout=30s >/dev/null
kubectl get configmap owned-by-background -n "$NS" --ignore-not-found -o name

# step: delete-cascade-foreground
kubectl delete bj owner-foreground -n "$NS" --cascade=foreground --timeout=30s
kubectl get configmap owned-by-foreground -n "$NS" --ignore-not-found -o name

# step: delete-cascade-orphan
kubectl delete bj owner-orphan -n "$NS" --cascade=orphan --timeout=30s
kubectl get configmap owned-by-orphan -n "$NS" -o jsonpath='{.metadata.name}{" owners="}{.metadata.ownerReferences}{"\n"}'

# step: delete-with-finalizer
kubectl create -n "$NS" -f - -o name <<'EOF'
apiVersion: batch.octomy.io/v1alpha1
kind: BatchJob
metadata: {name: held, finalizers: [example.com/hold]}
spec:
  template: {spec: {containers: [{name: main, image: busybox}]}}
EOF
kubectl delete bj held -n "$NS" --wait=false
kubectl get bj held -n "$NS" -o jsonpath='{.metadata.name}{" "}{.metadata.finalizers}{" deleting="}{.metadata.deletionGracePeriodSeconds}{"\n"}'
kubectl delete bj held -n "$NS" --timeout=2s
kubectl label bj held -n "$NS" still=here
kubectl patch bj held -n "$NS" --type=merge -p '{"spec":{"type":"changed"}}'

# step: delete-finalizer-removed
kubectl patch bj held -n "$NS" --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]'
kubectl wait --for=delete bj/held -n "$NS" --timeout=10s
kubectl get bj held -n "$NS" --ignore-not-found -o name

# step: delete-dry-run
kubectl delete bj solve-b -n "$NS" --dry-run=server
kubectl get bj solve-b -n "$NS" -o name

# step: delete-by-label
kubectl delete bj -n "$NS" -l made=generated

# step: delete-missing
kubectl delete bj nope -n "$NS"

# step: delete-missing-ignored
kubectl delete bj nope -n "$NS" --ignore-not-found
echo "exit $?"

# step: delete-force
kubectl delete bj from-list -n "$NS" --grace-period=0 --force

# step: delete-from-files
kubectl delete -n "$NS" -f "$WORK/app/"

# step: delete-all
kubectl delete bj --all -n "$NS"
kubectl get bj -n "$NS"

# step: delete-cluster-scoped
kubectl delete bn "ws-$RUN"

# step: top
kubectl top pods -n "$NS"

# step: cluster-info
kubectl cluster-info
