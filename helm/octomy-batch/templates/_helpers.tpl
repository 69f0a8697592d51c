{{/* Base name of every object: the release name, or release-chart when it does not say octomy-batch. */}}
{{- define "octomy.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* No helm.sh/chart or managed-by labels: the same objects are applied with kustomize too. */}}
{{- define "octomy.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: octomy-batch
{{- end -}}

{{- define "octomy.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "octomy.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "octomy.controller" -}}{{ include "octomy.fullname" . }}-controller{{- end -}}
{{- define "octomy.agent" -}}{{ include "octomy.fullname" . }}-agent{{- end -}}

{{/* The policy file's text: a string is kept verbatim, a map is written as YAML. */}}
{{- define "octomy.policy" -}}
{{- if kindIs "string" .Values.policy -}}
{{ .Values.policy }}
{{- else if .Values.policy -}}
{{ toYaml .Values.policy }}
{{- else -}}
{}
{{- end -}}
{{- end -}}
