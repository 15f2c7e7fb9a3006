{{/*
The chart name, shortened to the 63 characters a label value allows.
*/}}
{{- define "queuegate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The full name of the release's resources: the release name, plus the chart name unless the
release name already contains it, so `helm install queuegate ...` gives `queuegate`, not
`queuegate-queuegate`.
*/}}
{{- define "queuegate.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The chart label value; `+` is not allowed in labels, so a SemVer build suffix is rewritten.
*/}}
{{- define "queuegate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Labels shared by everything of one release. A Deployment's selector is immutable, so selectors
use only labels that never change between upgrades.
*/}}
{{- define "queuegate.instanceLabels" -}}
app.kubernetes.io/name: {{ include "queuegate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
Labels that select the gateway pods. The component keeps them apart from the dev Redis pods of
the same release.
*/}}
{{- define "queuegate.selectorLabels" -}}
{{ include "queuegate.instanceLabels" . }}
app.kubernetes.io/component: gateway
{{- end -}}

{{/*
Labels of every resource except the component: version, ownership and `commonLabels`.
*/}}
{{- define "queuegate.baseLabels" -}}
helm.sh/chart: {{ include "queuegate.chart" . }}
{{ include "queuegate.instanceLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: queuegate
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
Labels of the gateway's resources.
*/}}
{{- define "queuegate.labels" -}}
{{ include "queuegate.baseLabels" . }}
app.kubernetes.io/component: gateway
{{- end -}}

{{/*
The management Service's name. The full name is cut first so the suffix always survives: cutting
after would give a long full name's Service and its management Service the same name.
*/}}
{{- define "queuegate.managementServiceName" -}}
{{- printf "%s-management" (include "queuegate.fullname" . | trunc 52 | trimSuffix "-") -}}
{{- end -}}

{{/*
Labels of the management Service, and the ServiceMonitor's selector. The extra label is what keeps
the shoppers' Service (which carries every other label) out of the ServiceMonitor's selection.
*/}}
{{- define "queuegate.managementServiceSelectorLabels" -}}
{{ include "queuegate.instanceLabels" . }}
app.kubernetes.io/component: gateway
queuegate.io/service: management
{{- end -}}

{{- define "queuegate.managementServiceLabels" -}}
{{ include "queuegate.labels" . }}
queuegate.io/service: management
{{- end -}}

{{/*
Stops rendering when the actuator would share the shoppers' port: the gateway then refuses to start
(the `queues` endpoint and the `gateway` endpoint would be public), and the chart does not offer the
switch that allows it.
*/}}
{{- define "queuegate.validatePorts" -}}
{{- if eq (toString .Values.containerPorts.management) (toString .Values.containerPorts.http) -}}
{{- fail (printf "containerPorts.management must differ from containerPorts.http (both are %v): the management port serves /actuator/queues and /actuator/gateway, which must not be reachable on the shoppers' port" .Values.containerPorts.http) -}}
{{- end -}}
{{- end -}}

{{/*
Labels that select the dev Redis pods, and the labels of its resources.
*/}}
{{- define "queuegate.devRedis.selectorLabels" -}}
{{ include "queuegate.instanceLabels" . }}
app.kubernetes.io/component: dev-redis
{{- end -}}

{{- define "queuegate.devRedis.labels" -}}
{{ include "queuegate.baseLabels" . }}
app.kubernetes.io/component: dev-redis
{{- end -}}

{{/*
The gateway image reference; a digest wins over the tag so a pinned image cannot drift.
*/}}
{{- define "queuegate.image" -}}
{{- $repository := .Values.image.repository -}}
{{- if .Values.image.registry -}}
{{- $repository = printf "%s/%s" .Values.image.registry .Values.image.repository -}}
{{- end -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
The service account the pods run as.
*/}}
{{- define "queuegate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "queuegate.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The name of the chart's own Secret (token secret, previous secrets, Redis password, operator password).
*/}}
{{- define "queuegate.secretName" -}}
{{- include "queuegate.fullname" . -}}
{{- end -}}

{{/*
Whether the chart has to create its Secret: only when some value it holds is not taken from an
existing Secret.
*/}}
{{- define "queuegate.createSecret" -}}
{{- if or (not .Values.queuegate.token.existingSecret) .Values.queuegate.token.previousSecrets (and .Values.redis.password (not .Values.redis.existingSecret)) (include "queuegate.operatorPasswordInChartSecret" .) -}}
true
{{- end -}}
{{- end -}}

{{/*
Whether the operator's password is a value of the chart, kept in its own Secret.
*/}}
{{- define "queuegate.operatorPasswordInChartSecret" -}}
{{- if and .Values.operatorLogin.password (not .Values.operatorLogin.existingSecret) -}}
true
{{- end -}}
{{- end -}}

{{/*
The names the management port takes changes and serves the console under, comma-separated for
QUEUEGATE_OPERATIONS_ALLOWEDHOSTS: the pod's name and IP (from POD_NAME and POD_IP, which the
container defines before it), every name of the management Service, and `queuegate.operations.allowedHosts`.
A rebinding page's own name is none of these, so its changes are refused.
*/}}
{{- define "queuegate.allowedHosts" -}}
{{- $service := include "queuegate.managementServiceName" . -}}
{{- $namespace := .Release.Namespace -}}
{{- $hosts := list "$(POD_NAME)" "$(POD_IP)" $service (printf "%s.%s" $service $namespace) (printf "%s.%s.svc" $service $namespace) (printf "%s.%s.svc.%s" $service $namespace .Values.clusterDomain) -}}
{{- $hosts = concat $hosts (.Values.queuegate.operations.allowedHosts | default list) -}}
{{- join "," $hosts -}}
{{- end -}}

{{/*
The Secret and key holding the token secret.
*/}}
{{- define "queuegate.tokenSecretName" -}}
{{- default (include "queuegate.secretName" .) .Values.queuegate.token.existingSecret -}}
{{- end -}}

{{- define "queuegate.tokenSecretKey" -}}
{{- if .Values.queuegate.token.existingSecret -}}
{{- .Values.queuegate.token.existingSecretKey -}}
{{- else -}}
token-secret
{{- end -}}
{{- end -}}

{{/*
Whether the gateway authenticates to Redis with a password, from either source.
*/}}
{{- define "queuegate.redisHasPassword" -}}
{{- if or .Values.redis.existingSecret .Values.redis.password -}}
true
{{- end -}}
{{- end -}}

{{/*
The Secret and key holding the Redis password.
*/}}
{{- define "queuegate.redisSecretName" -}}
{{- default (include "queuegate.secretName" .) .Values.redis.existingSecret -}}
{{- end -}}

{{- define "queuegate.redisSecretKey" -}}
{{- if .Values.redis.existingSecret -}}
{{- .Values.redis.existingSecretPasswordKey -}}
{{- else -}}
redis-password
{{- end -}}
{{- end -}}

{{/*
Name of the dev-only Redis Deployment and Service.
*/}}
{{- define "queuegate.devRedis.fullname" -}}
{{- printf "%s-dev-redis" (include "queuegate.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The `spring.data.redis` block for the chosen mode. Only the keys of that mode are rendered, so a
leftover host does not silently win over sentinel or cluster settings. The password is not here:
it comes from the Secret through SPRING_DATA_REDIS_PASSWORD.
*/}}
{{- define "queuegate.springDataRedis" -}}
{{- $redis := .Values.redis -}}
{{- $out := dict "timeout" $redis.timeout -}}
{{- if .Values.devRedis.enabled -}}
{{- $_ := set $out "host" (include "queuegate.devRedis.fullname" .) -}}
{{- $_ := set $out "port" 6379 -}}
{{- else if eq $redis.mode "standalone" -}}
{{- $_ := set $out "host" (required "redis.host is required in redis.mode=standalone (or set devRedis.enabled=true for a dev-only Redis)" $redis.host) -}}
{{- $_ := set $out "port" $redis.port -}}
{{- $_ := set $out "database" $redis.database -}}
{{- else if eq $redis.mode "sentinel" -}}
{{- if not $redis.sentinel.nodes -}}
{{- fail "redis.sentinel.nodes needs at least one host:port in redis.mode=sentinel" -}}
{{- end -}}
{{- $_ := set $out "sentinel" (dict "master" $redis.sentinel.master "nodes" (join "," $redis.sentinel.nodes)) -}}
{{- $_ := set $out "database" $redis.database -}}
{{- else if eq $redis.mode "cluster" -}}
{{- if not $redis.cluster.nodes -}}
{{- fail "redis.cluster.nodes needs at least one host:port in redis.mode=cluster" -}}
{{- end -}}
{{- $cluster := dict "nodes" (join "," $redis.cluster.nodes) -}}
{{- if $redis.cluster.maxRedirects -}}
{{- $_ := set $cluster "max-redirects" $redis.cluster.maxRedirects -}}
{{- end -}}
{{- $_ := set $out "cluster" $cluster -}}
{{- else -}}
{{- fail (printf "redis.mode must be standalone, sentinel or cluster, was %q" $redis.mode) -}}
{{- end -}}
{{- if $redis.username -}}
{{- $_ := set $out "username" $redis.username -}}
{{- end -}}
{{- if $redis.tls.enabled -}}
{{- $_ := set $out "ssl" (dict "enabled" true) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/*
The actuator endpoints exposed on the management port, comma-separated; the console only when
`console.enabled`, so switching it on needs no retyping of the rest.
*/}}
{{- define "queuegate.exposedEndpoints" -}}
{{- $endpoints := list "health" "info" "prometheus" "gateway" "queues" -}}
{{- if .Values.console.enabled -}}
{{- $endpoints = append $endpoints "queueconsole" -}}
{{- end -}}
{{- join "," $endpoints -}}
{{- end -}}

{{/*
The whole application.yaml the gateway reads. `extraConfig` is merged last and wins. The token
secret is never written here: it reaches the pod as QUEUEGATE_TOKEN_SECRET from a Secret.
*/}}
{{- define "queuegate.applicationConfig" -}}
{{- $qg := .Values.queuegate -}}
{{- /* identity.header wins over the deprecated userIdHeader; neither set means the gateway's own default. */ -}}
{{- $identity := dict
      "source" $qg.identity.source
      "header" ($qg.identity.header | default $qg.userIdHeader | default "X-User-Id") -}}
{{- $queuegate := dict
      "enabled" $qg.enabled
      "identity" $identity
      "token" (dict "ttl" $qg.token.ttl)
      "scheduler" (dict "interval" $qg.scheduler.interval)
      "safety-net" (dict "interval" $qg.safetyNet.interval)
      "redis" (dict "embedded" false "timeout" $qg.redis.timeout) -}}
{{- if .Values.products -}}
{{- $_ := set $queuegate "products" .Values.products -}}
{{- end -}}
{{- with $qg.trustedProxies -}}
{{- $_ := set $queuegate "trusted-proxies" . -}}
{{- end -}}
{{- $config := dict
      "queuegate" $queuegate
      "spring" (dict
        "data" (dict "redis" (include "queuegate.springDataRedis" . | fromYaml))
        "cloud" (dict "gateway" (dict "server" (dict "webflux" (dict "routes" (.Values.routes | default list))))))
      "server" (dict
        "port" .Values.containerPorts.http
        "forward-headers-strategy" "none")
      "management" (dict
        "server" (dict "port" .Values.containerPorts.management)
        "endpoint" (dict
          "health" (dict "probes" (dict "enabled" true))
          "gateway" (dict "access" "read-only"))
        "endpoints" (dict "web" (dict "exposure" (dict "include" (include "queuegate.exposedEndpoints" .))))) -}}
{{- $merged := mustMergeOverwrite $config (deepCopy .Values.extraConfig) -}}
{{- if or (ne (toString $merged.server.port) (toString .Values.containerPorts.http)) (ne (toString $merged.management.server.port) (toString .Values.containerPorts.management)) -}}
{{- fail "extraConfig must not move server.port or management.server.port: set containerPorts.http and containerPorts.management instead, which the pod's ports and probes follow" -}}
{{- end -}}
{{- toYaml $merged -}}
{{- end -}}

{{/*
An HTTP probe from a values block: everything but `enabled` and `path` is a timing field. Probes ask
the management port, the only one that serves the actuator.
*/}}
{{- define "queuegate.httpProbe" -}}
httpGet:
  path: {{ .probe.path }}
  port: management
{{ omit .probe "enabled" "path" | toYaml }}
{{- end -}}

{{/*
A security context from a values block, without the chart's own `enabled` switch.
*/}}
{{- define "queuegate.securityContext" -}}
{{- omit . "enabled" | toYaml -}}
{{- end -}}
