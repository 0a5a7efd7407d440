-- wfapi schema, version 13: the workflows an organization's executions name that have not arrived.
-- An execution is visible only once its workflow is stored. While an organization awaits no
-- workflow, all its executions are visible, and a list of them need not look up each one's
-- workflow (src/modules/executions/executions.store.ts). Ingestion keeps the table: a batch adds
-- the workflows its executions name that are not stored, and removes the workflows it stores.
-- A row left behind only costs the lookup; a workflow is never deleted, so none is missing.
create table awaited_workflows (
  organization_id uuid not null,
  workflow_uuid uuid not null,
  primary key (organization_id, workflow_uuid)
);

insert into awaited_workflows (organization_id, workflow_uuid)
  select distinct e.organization_id, e.workflow_uuid from executions e
  where not exists (
    select 1 from workflows w where w.organization_id = e.organization_id and w.uuid = e.workflow_uuid
  );
