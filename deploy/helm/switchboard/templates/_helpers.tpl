{{/*
Names and labels, as `helm create` and the ecosystem's charts (bitnami, temporalio/helm-charts) spell them.
*/}}
{{- define "switchboard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "switchboard.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "switchboard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The name of a component's objects: <fullname>-<component>. */}}
{{- define "switchboard.componentName" -}}
{{- printf "%s-%s" (include "switchboard.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels of a component: stable for the release's life (a Deployment's selector is immutable). */}}
{{- define "switchboard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "switchboard.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Every label of a component's objects. */}}
{{- define "switchboard.labels" -}}
helm.sh/chart: {{ include "switchboard.chart" .root }}
{{ include "switchboard.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: switchboard
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "switchboard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "switchboard.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "switchboard.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
Drain deadlines (src/platform/lifecycle/drain.ts): a process force-exits CLOSE_MARGIN_MS (5 s) after its drain's deadline;
the pod's grace adds 5 s more so that the process's own exit, with its log line, comes before the kubelet's SIGKILL.
The API's grace also covers its preStop sleep, which runs before SIGTERM. test/integration/helmChart.test.ts holds these
to drain.ts's constant.
*/}}
{{- define "switchboard.closeMarginSeconds" -}}5{{- end }}
{{- define "switchboard.killMarginSeconds" -}}5{{- end }}

{{- define "switchboard.api.terminationGracePeriodSeconds" -}}
{{- add (int .Values.api.preStopSleepSeconds) (int .Values.api.drainSeconds) (include "switchboard.closeMarginSeconds" .) (include "switchboard.killMarginSeconds" .) }}
{{- end }}

{{- define "switchboard.worker.terminationGracePeriodSeconds" -}}
{{- add (int .Values.worker.shutdownGraceSeconds) (include "switchboard.closeMarginSeconds" .) (include "switchboard.killMarginSeconds" .) }}
{{- end }}

{{- define "switchboard.secretName" -}}
{{- required "secrets.existingSecret: name the Secret holding the app's secret settings (docs/operations.md, \"Kubernetes\")" .Values.secrets.existingSecret }}
{{- end }}

{{/*
Whether an environment variable's name is a secret setting's (src/platform/startupCheck.ts SECRET_SETTINGS and every
name shaped like one): such a variable is only ever read from a Secret.
*/}}
{{- define "switchboard.isSecretName" -}}
{{- if or (has . (list "DATABASE_URL" "SMTP_URL")) (and (regexMatch "(SECRET|TOKEN|PASSWORD|PWD|_KEY)$" .) (not (hasSuffix "PUBLIC_KEY" .))) }}true{{- end }}
{{- end }}

{{/*
Settings the chart sets from its own values: `config` naming one would give a container the variable twice (and the
grace periods computed here would no longer match the process's deadline).
*/}}
{{- define "switchboard.chartSettings" -}}
{{- list "HOST" "PORT" "PUBLIC_BASE_URL" "API_DRAIN_SECONDS" "WORKER_SHUTDOWN_GRACE_SECONDS" "WORKER_METRICS_PORT" "DATABASE_URL" "TEMPORAL_ADDRESS" "TEMPORAL_NAMESPACE" "TEMPORAL_TASK_QUEUE" "TEMPORAL_TLS" "TEMPORAL_TLS_CLIENT_CERT_PATH" "TEMPORAL_TLS_CLIENT_KEY_PATH" "TEMPORAL_TLS_SERVER_CA_CERT_PATH" "TEMPORAL_TLS_SERVER_NAME" "RECORDINGS_STORE" "RECORDINGS_DIR" "S3_BUCKET" "S3_REGION" "S3_ENDPOINT" "S3_FORCE_PATH_STYLE" "S3_SSE" "SIMULATOR_URL" "SIMULATOR_CALLBACK_BASE_URL" | toJson }}
{{- end }}

{{/*
Refuses to render a secret setting given in clear (in `config`, or as a plain `value` in an extraEnv list) and a
`config` entry for a setting the chart sets from its own values.
*/}}
{{- define "switchboard.refuseSecretsInClear" -}}
{{- $chartSettings := include "switchboard.chartSettings" . | fromJsonArray }}
{{- range $name, $value := .Values.config }}
{{- if include "switchboard.isSecretName" $name }}
{{- fail (printf "config.%s: %s is a secret; put it in the Secret secrets.existingSecret names (key %s), never in values" $name $name $name) }}
{{- end }}
{{- if has $name $chartSettings }}
{{- fail (printf "config.%s: the chart sets %s from its own values (values.yaml says which)" $name $name) }}
{{- end }}
{{- end }}
{{- range $list := list (list "extraEnv" .Values.extraEnv) (list "api.extraEnv" .Values.api.extraEnv) (list "worker.extraEnv" .Values.worker.extraEnv) }}
{{- range (index $list 1) }}
{{- if and (include "switchboard.isSecretName" .name) (hasKey . "value") }}
{{- fail (printf "%s: %s is a secret; give it as valueFrom.secretKeyRef, never as a value" (index $list 0) .name) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* An environment variable read from a Secret: dict "name" "key" "secret" "optional". */}}
{{- define "switchboard.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ default .name .key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end }}

{{- define "switchboard.apiUrl" -}}
{{- printf "http://%s:%d" (include "switchboard.componentName" (dict "root" . "component" "api")) (int .Values.api.service.port) }}
{{- end }}

{{- define "switchboard.simulatorUrl" -}}
{{- default (printf "http://%s:%d" (include "switchboard.componentName" (dict "root" . "component" "simulator")) (int .Values.simulator.port)) .Values.simulatorUrl }}
{{- end }}

{{- define "switchboard.publicBaseUrl" -}}
{{- $url := required "publicBaseUrl: the https URL the API is served under" .Values.publicBaseUrl }}
{{- if not (hasPrefix "https://" $url) }}
{{- fail (printf "publicBaseUrl %q is not https: portal cookies, invitation links and API keys must never cross a network in clear" $url) }}
{{- end }}
{{- $url }}
{{- end }}

{{- define "switchboard.carrierCallbackBaseUrl" -}}
{{- default (include "switchboard.publicBaseUrl" .) .Values.carrierCallbackBaseUrl }}
{{- end }}

{{/*
The settings the API and the workers share (src/platform/config.ts): Postgres, Temporal (and its mTLS), the recordings
store and the operator's `config`.
*/}}
{{- define "switchboard.sharedEnv" -}}
{{- include "switchboard.secretEnv" (dict "name" "DATABASE_URL" "key" .Values.database.urlKey "secret" (default (include "switchboard.secretName" .) .Values.database.existingSecret)) }}
- name: TEMPORAL_ADDRESS
  value: {{ required "temporal.address: the Temporal frontend's host:port" .Values.temporal.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ .Values.temporal.namespace | quote }}
- name: TEMPORAL_TASK_QUEUE
  value: {{ .Values.temporal.taskQueue | quote }}
{{- if .Values.temporal.tls.enabled }}
{{- $_ := required "temporal.tls.existingSecret: the Secret with the client certificate (tls.crt, tls.key)" .Values.temporal.tls.existingSecret }}
- name: TEMPORAL_TLS
  value: "true"
- name: TEMPORAL_TLS_CLIENT_CERT_PATH
  value: /etc/switchboard/temporal-tls/tls.crt
- name: TEMPORAL_TLS_CLIENT_KEY_PATH
  value: /etc/switchboard/temporal-tls/tls.key
{{- if .Values.temporal.tls.serverCa }}
- name: TEMPORAL_TLS_SERVER_CA_CERT_PATH
  value: /etc/switchboard/temporal-tls/ca.crt
{{- end }}
{{- with .Values.temporal.tls.serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- end }}
- name: RECORDINGS_STORE
  value: {{ .Values.recordings.store | quote }}
{{- if eq .Values.recordings.store "filesystem" }}
- name: RECORDINGS_DIR
  value: /data/recordings
{{- else if eq .Values.recordings.store "s3" }}
- name: S3_BUCKET
  value: {{ required "recordings.s3.bucket: the bucket of RECORDINGS_STORE=s3" .Values.recordings.s3.bucket | quote }}
{{- range $name, $value := dict "S3_REGION" .Values.recordings.s3.region "S3_ENDPOINT" .Values.recordings.s3.endpoint "S3_FORCE_PATH_STYLE" .Values.recordings.s3.forcePathStyle "S3_SSE" .Values.recordings.s3.sse }}
{{- if $value }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end }}
{{- else }}
{{- fail (printf "recordings.store must be filesystem or s3, not %q" .Values.recordings.store) }}
{{- end }}
- name: SIMULATOR_URL
  value: {{ include "switchboard.simulatorUrl" . | quote }}
{{- range $name, $value := .Values.config }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Volumes of the API and the workers: a writable /tmp (the root filesystem is read-only), recordings, Temporal's mTLS. */}}
{{- define "switchboard.volumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- if eq .Values.recordings.store "filesystem" }}
- name: recordings
  persistentVolumeClaim:
    claimName: {{ default (include "switchboard.componentName" (dict "root" . "component" "recordings")) .Values.recordings.persistence.existingClaim }}
{{- end }}
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  secret:
    secretName: {{ .Values.temporal.tls.existingSecret }}
    # 0400, in decimal: YAML 1.1 (the API server's) and 1.2 read a leading 0 differently.
    defaultMode: 256
{{- end }}
{{- end }}

{{- define "switchboard.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if eq .Values.recordings.store "filesystem" }}
- name: recordings
  mountPath: /data/recordings
{{- end }}
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  mountPath: /etc/switchboard/temporal-tls
  readOnly: true
{{- end }}
{{- end }}

{{/* Pod-level settings every Switchboard pod shares. */}}
{{- define "switchboard.podSpecCommon" -}}
serviceAccountName: {{ include "switchboard.serviceAccountName" . }}
automountServiceAccountToken: {{ .Values.serviceAccount.automountServiceAccountToken }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end }}
