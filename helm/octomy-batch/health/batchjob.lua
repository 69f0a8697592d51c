-- Argo CD health check for BatchJob (argocd-cm: resource.customizations.health.batch.octomy.io_BatchJob).
-- Healthy once it succeeded; Degraded when it failed, was skipped or rejected; Progressing while
-- it waits or runs. The message is the job's own.
hs = {}
local phase = nil
if obj.status ~= nil then
  phase = obj.status.phase
end
if phase == "Succeeded" then
  hs.status = "Healthy"
elseif phase == "Failed" or phase == "Rejected" or phase == "Skipped" then
  hs.status = "Degraded"
else
  hs.status = "Progressing"
end
if obj.status ~= nil and obj.status.message ~= nil then
  hs.message = obj.status.message
elseif phase ~= nil then
  hs.message = phase
else
  hs.message = "waiting for the controller"
end
return hs
