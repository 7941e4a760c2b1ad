/* tslint:disable */
/* eslint-disable */
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import type { TsoaRoute } from '@tsoa/runtime';
import {  fetchMiddlewares, ExpressTemplateService } from '@tsoa/runtime';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { BenchmarkTemplatesController } from './../templates/benchmark-templates.controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { NodesController } from './../nodes/nodes.controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { InternalNodesController } from './../nodes/internal-nodes.controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { HeartbeatsController } from './../nodes/heartbeats.controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { MarketsController } from './../markets/markets.controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { InternalMarketsController } from './../markets/internal-markets.controller';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { BenchmarksController } from './../benchmarks/benchmarks.controller';
import { expressAuthentication } from './../authentication';
// @ts-ignore - no great way to install types from subpackage
import { iocContainer } from './../ioc';
import type { IocContainer, IocContainerFactory } from '@tsoa/runtime';
import type { Request as ExRequest, Response as ExResponse, RequestHandler, Router } from 'express';

const expressAuthenticationRecasted = expressAuthentication as (req: ExRequest, securityName: string, scopes?: string[], res?: ExResponse) => Promise<any>;


// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

const models: TsoaRoute.Models = {
    "BenchmarkChangeStatus": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["added"]},{"dataType":"enum","enums":["updated"]},{"dataType":"enum","enums":["removed"]},{"dataType":"enum","enums":["unchanged"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Record_string.unknown_": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"any"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BenchmarkMetric": {
        "dataType": "refObject",
        "properties": {
            "key": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":128}}},
        },
        "additionalProperties": {"dataType":"any"},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BenchmarkOperation": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":200}}},
            "description": {"dataType":"string","validators":{"maxLength":{"value":10000}}},
            "source": {"dataType":"string","validators":{"maxLength":{"value":2000}}},
            "ops": {"dataType":"array","array":{"dataType":"refAlias","ref":"Record_string.unknown_"},"required":true,"validators":{"maxItems":{"value":64}}},
            "metrics": {"dataType":"array","array":{"dataType":"refObject","ref":"BenchmarkMetric"},"required":true,"validators":{"maxItems":{"value":100}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MetricChanges": {
        "dataType": "refObject",
        "properties": {
            "added": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "updated": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "removed": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "unchanged": {"dataType":"array","array":{"dataType":"string"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ThresholdRecord": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"double","required":true},
            "name": {"dataType":"string","required":true},
            "metric": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "group": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "isGating": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MarketThresholdRecord": {
        "dataType": "refObject",
        "properties": {
            "thresholdId": {"dataType":"double","required":true},
            "marketAddress": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "jsonLogic": {"ref":"Record_string.unknown_","required":true},
            "isOptional": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ThresholdLinkToAdd": {
        "dataType": "refObject",
        "properties": {
            "marketAddress": {"dataType":"string","required":true},
            "jsonLogic": {"ref":"Record_string.unknown_","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ThresholdLinkToRemove": {
        "dataType": "refObject",
        "properties": {
            "thresholdId": {"dataType":"double","required":true},
            "marketAddress": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BenchmarkReconciliation": {
        "dataType": "refObject",
        "properties": {
            "inSync": {"dataType":"boolean","required":true},
            "actionable": {"dataType":"boolean","required":true},
            "needsThreshold": {"dataType":"boolean","required":true},
            "hasGlobalLink": {"dataType":"boolean","required":true},
            "targetThresholdId": {"dataType":"union","subSchemas":[{"dataType":"double"},{"dataType":"enum","enums":[null]}],"required":true},
            "targetMetricKey": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "add": {"dataType":"array","array":{"dataType":"refObject","ref":"ThresholdLinkToAdd"},"required":true},
            "remove": {"dataType":"array","array":{"dataType":"refObject","ref":"ThresholdLinkToRemove"},"required":true},
            "benchmarkMetricKeys": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "defaultMetricKey": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BenchmarkTemplateChange": {
        "dataType": "refObject",
        "properties": {
            "slug": {"dataType":"string","required":true},
            "status": {"ref":"BenchmarkChangeStatus","required":true},
            "operation": {"dataType":"union","subSchemas":[{"ref":"BenchmarkOperation"},{"dataType":"enum","enums":[null]}],"required":true},
            "requirements": {"dataType":"array","array":{"dataType":"refAlias","ref":"Record_string.unknown_"},"required":true},
            "metricChanges": {"ref":"MetricChanges","required":true},
            "conflictKeys": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "supportedMarkets": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "existingThresholds": {"dataType":"array","array":{"dataType":"refObject","ref":"ThresholdRecord"},"required":true},
            "existingMarketThresholds": {"dataType":"array","array":{"dataType":"refObject","ref":"MarketThresholdRecord"},"required":true},
            "reconciliation": {"ref":"BenchmarkReconciliation","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ApplyBenchmarkTemplatesResponse": {
        "dataType": "refObject",
        "properties": {
            "changes": {"dataType":"array","array":{"dataType":"refObject","ref":"BenchmarkTemplateChange"},"required":true},
            "dryRun": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "FieldError": {
        "dataType": "refObject",
        "properties": {
            "path": {"dataType":"string","required":true},
            "message": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ErrorBody": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "message": {"dataType":"string","required":true},
            "status": {"dataType":"double"},
            "code": {"dataType":"string"},
            "requestId": {"dataType":"string"},
            "errors": {"dataType":"array","array":{"dataType":"refObject","ref":"FieldError"}},
            "moreErrors": {"dataType":"double"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MarketReference": {
        "dataType": "refAlias",
        "type": {"dataType":"string","validators":{"minLength":{"value":1},"maxLength":{"value":200}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BenchmarkTemplateThreshold": {
        "dataType": "refObject",
        "properties": {
            "metric": {"dataType":"string","validators":{"maxLength":{"value":128}}},
            "jsonLogic": {"ref":"Record_string.unknown_"},
            "optional": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BenchmarkTemplate": {
        "dataType": "refObject",
        "properties": {
            "slug": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":128},"pattern":{"value":"^[a-z0-9][a-z0-9._-]*$"}}},
            "operation": {"ref":"BenchmarkOperation","required":true},
            "requirements": {"dataType":"array","array":{"dataType":"refAlias","ref":"Record_string.unknown_"},"required":true,"validators":{"maxItems":{"value":100}}},
            "supportedMarkets": {"dataType":"array","array":{"dataType":"refAlias","ref":"MarketReference"},"required":true,"validators":{"maxItems":{"value":1000}}},
            "threshold": {"ref":"BenchmarkTemplateThreshold"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ApplyBenchmarkTemplatesRequest": {
        "dataType": "refObject",
        "properties": {
            "templates": {"dataType":"array","array":{"dataType":"refObject","ref":"BenchmarkTemplate"},"required":true,"validators":{"maxItems":{"value":500}}},
            "prune": {"dataType":"boolean"},
            "dryRun": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NodeStatus": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["ONLINE"]},{"dataType":"enum","enums":["OFFLINE"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NodeState": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["ACTIVE"]},{"dataType":"enum","enums":["DISABLED"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NodeGpu": {
        "dataType": "refObject",
        "properties": {
            "model": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":128}}},
            "memoryBytes": {"dataType":"long","required":true,"validators":{"minimum":{"value":0}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NodeSpecs": {
        "dataType": "refObject",
        "properties": {
            "cpus": {"dataType":"integer","required":true,"validators":{"minimum":{"value":1},"maximum":{"value":4096}}},
            "memoryBytes": {"dataType":"long","required":true,"validators":{"minimum":{"value":1}}},
            "gpus": {"dataType":"array","array":{"dataType":"refObject","ref":"NodeGpu"},"required":true,"validators":{"maxItems":{"value":64}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NodeRecord": {
        "dataType": "refObject",
        "properties": {
            "address": {"dataType":"string","required":true},
            "market": {"dataType":"string","required":true},
            "marketName": {"dataType":"string","required":true},
            "status": {"ref":"NodeStatus","required":true},
            "state": {"ref":"NodeState","required":true},
            "capacity": {"dataType":"double","required":true},
            "specs": {"ref":"NodeSpecs","required":true},
            "domain": {"dataType":"string","required":true},
            "ingressUrl": {"dataType":"string","required":true},
            "registeredAt": {"dataType":"string","required":true},
            "lastSeenAt": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "WarmResource": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"any"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RegisterNodeResponse": {
        "dataType": "refObject",
        "properties": {
            "node": {"ref":"NodeRecord","required":true},
            "heartbeatIntervalSeconds": {"dataType":"double","required":true},
            "presenceTtlSeconds": {"dataType":"double","required":true},
            "warmResources": {"dataType":"array","array":{"dataType":"refAlias","ref":"WarmResource"},"required":true},
            "warmResourcesVersion": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RegisterNodeRequest": {
        "dataType": "refObject",
        "properties": {
            "market": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":200}}},
            "joinToken": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":200}}},
            "specs": {"ref":"NodeSpecs","required":true},
            "domain": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":253},"pattern":{"value":"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"}}},
            "ingressUrl": {"dataType":"string","required":true,"validators":{"maxLength":{"value":2048},"pattern":{"value":"^https?://[^\\s/?#]+(?:/[^\\s?#]*)?$"}}},
            "capacity": {"dataType":"integer","validators":{"minimum":{"value":1},"maximum":{"value":1000}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ListNodesResponse": {
        "dataType": "refObject",
        "properties": {
            "nodes": {"dataType":"array","array":{"dataType":"refObject","ref":"NodeRecord"},"required":true},
            "total": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NodeControlResponse": {
        "dataType": "refObject",
        "properties": {
            "address": {"dataType":"string","required":true},
            "state": {"dataType":"union","subSchemas":[{"ref":"NodeState"},{"dataType":"enum","enums":["REMOVED"]}],"required":true},
            "stoppedJobs": {"dataType":"array","array":{"dataType":"string"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NodeControlRequest": {
        "dataType": "refObject",
        "properties": {
            "reason": {"dataType":"string","validators":{"minLength":{"value":1},"maxLength":{"value":500}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NodeHeartbeatResponse": {
        "dataType": "refObject",
        "properties": {
            "address": {"dataType":"string","required":true},
            "status": {"ref":"NodeStatus","required":true},
            "heartbeatIntervalSeconds": {"dataType":"double","required":true},
            "presenceTtlSeconds": {"dataType":"double","required":true},
            "warmResourcesVersion": {"dataType":"string","required":true},
            "warmResources": {"dataType":"array","array":{"dataType":"refAlias","ref":"WarmResource"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NodeHeartbeatRequest": {
        "dataType": "refObject",
        "properties": {
            "specs": {"ref":"NodeSpecs"},
            "warmResourcesVersion": {"dataType":"string","validators":{"maxLength":{"value":64}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MarketJobLimits": {
        "dataType": "refObject",
        "properties": {
            "maxOps": {"dataType":"integer","required":true,"validators":{"minimum":{"value":1},"maximum":{"value":1000}}},
            "maxVolumes": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":1000}}},
            "cpusPerContainer": {"dataType":"double","required":true,"validators":{"minimum":{"value":0.01},"maximum":{"value":4096}}},
            "cpusPerJob": {"dataType":"double","required":true,"validators":{"minimum":{"value":0.01},"maximum":{"value":65536}}},
            "memoryBytesPerContainer": {"dataType":"long","required":true,"validators":{"minimum":{"value":8388608}}},
            "memoryBytesPerJob": {"dataType":"long","required":true,"validators":{"minimum":{"value":8388608}}},
            "pidsPerContainer": {"dataType":"integer","required":true,"validators":{"minimum":{"value":16},"maximum":{"value":4194304}}},
            "pidsPerJob": {"dataType":"integer","required":true,"validators":{"minimum":{"value":16},"maximum":{"value":4194304}}},
            "diskBytesPerContainer": {"dataType":"long","required":true,"validators":{"minimum":{"value":104857600}}},
            "volumeBytesPerJob": {"dataType":"long","required":true,"validators":{"minimum":{"value":1048576}}},
            "bytesPerResource": {"dataType":"long","required":true,"validators":{"minimum":{"value":1048576}}},
            "resourceBytesPerJob": {"dataType":"long","required":true,"validators":{"minimum":{"value":1048576}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MarketContainerPolicy": {
        "dataType": "refObject",
        "properties": {
            "user": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true,"validators":{"pattern":{"value":"^[0-9]{1,10}(?::[0-9]{1,10})?$"}}},
            "readOnlyRootFilesystem": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateMarketResponse": {
        "dataType": "refObject",
        "properties": {
            "address": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "pricePerSecond": {"dataType":"double","required":true},
            "gpuRequired": {"dataType":"boolean","required":true},
            "defaultDurationSeconds": {"dataType":"double","required":true},
            "maxDurationSeconds": {"dataType":"double","required":true},
            "jobLimits": {"ref":"MarketJobLimits","required":true},
            "containerPolicy": {"ref":"MarketContainerPolicy","required":true},
            "warmResources": {"dataType":"array","array":{"dataType":"refAlias","ref":"WarmResource"},"required":true},
            "createdAt": {"dataType":"string","required":true},
            "updatedAt": {"dataType":"string","required":true},
            "joinToken": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MarketJobLimitsUpdate": {
        "dataType": "refObject",
        "properties": {
            "maxOps": {"dataType":"integer","validators":{"minimum":{"value":1},"maximum":{"value":1000}}},
            "maxVolumes": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":1000}}},
            "cpusPerContainer": {"dataType":"double","validators":{"minimum":{"value":0.01},"maximum":{"value":4096}}},
            "cpusPerJob": {"dataType":"double","validators":{"minimum":{"value":0.01},"maximum":{"value":65536}}},
            "memoryBytesPerContainer": {"dataType":"long","validators":{"minimum":{"value":8388608}}},
            "memoryBytesPerJob": {"dataType":"long","validators":{"minimum":{"value":8388608}}},
            "pidsPerContainer": {"dataType":"integer","validators":{"minimum":{"value":16},"maximum":{"value":4194304}}},
            "pidsPerJob": {"dataType":"integer","validators":{"minimum":{"value":16},"maximum":{"value":4194304}}},
            "diskBytesPerContainer": {"dataType":"long","validators":{"minimum":{"value":104857600}}},
            "volumeBytesPerJob": {"dataType":"long","validators":{"minimum":{"value":1048576}}},
            "bytesPerResource": {"dataType":"long","validators":{"minimum":{"value":1048576}}},
            "resourceBytesPerJob": {"dataType":"long","validators":{"minimum":{"value":1048576}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MarketContainerPolicyUpdate": {
        "dataType": "refObject",
        "properties": {
            "user": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"value":"^[0-9]{1,10}(?::[0-9]{1,10})?$"}}},
            "readOnlyRootFilesystem": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateMarketRequest": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":64},"pattern":{"value":"^[A-Za-z0-9](?:[A-Za-z0-9\\x20._+-]*[A-Za-z0-9])?$"}}},
            "pricePerSecond": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":1000000000}}},
            "gpuRequired": {"dataType":"boolean"},
            "defaultDurationSeconds": {"dataType":"integer","validators":{"minimum":{"value":60},"maximum":{"value":2592000}}},
            "maxDurationSeconds": {"dataType":"integer","validators":{"minimum":{"value":60},"maximum":{"value":2592000}}},
            "jobLimits": {"ref":"MarketJobLimitsUpdate"},
            "containerPolicy": {"ref":"MarketContainerPolicyUpdate"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MarketRecord": {
        "dataType": "refObject",
        "properties": {
            "address": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "pricePerSecond": {"dataType":"double","required":true},
            "gpuRequired": {"dataType":"boolean","required":true},
            "defaultDurationSeconds": {"dataType":"double","required":true},
            "maxDurationSeconds": {"dataType":"double","required":true},
            "jobLimits": {"ref":"MarketJobLimits","required":true},
            "containerPolicy": {"ref":"MarketContainerPolicy","required":true},
            "warmResources": {"dataType":"array","array":{"dataType":"refAlias","ref":"WarmResource"},"required":true},
            "createdAt": {"dataType":"string","required":true},
            "updatedAt": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateMarketRequest": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","validators":{"minLength":{"value":1},"maxLength":{"value":64},"pattern":{"value":"^[A-Za-z0-9](?:[A-Za-z0-9\\x20._+-]*[A-Za-z0-9])?$"}}},
            "pricePerSecond": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":1000000000}}},
            "gpuRequired": {"dataType":"boolean"},
            "defaultDurationSeconds": {"dataType":"integer","validators":{"minimum":{"value":60},"maximum":{"value":2592000}}},
            "maxDurationSeconds": {"dataType":"integer","validators":{"minimum":{"value":60},"maximum":{"value":2592000}}},
            "jobLimits": {"ref":"MarketJobLimitsUpdate"},
            "containerPolicy": {"ref":"MarketContainerPolicyUpdate"},
            "warmResources": {"dataType":"array","array":{"dataType":"refAlias","ref":"WarmResource"},"validators":{"maxItems":{"value":32}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RotateJoinTokenResponse": {
        "dataType": "refObject",
        "properties": {
            "address": {"dataType":"string","required":true},
            "joinToken": {"dataType":"string","required":true},
            "revokedNodes": {"dataType":"array","array":{"dataType":"string"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RotateJoinTokenRequest": {
        "dataType": "refObject",
        "properties": {
            "revokeNodes": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ListMarketsResponse": {
        "dataType": "refObject",
        "properties": {
            "markets": {"dataType":"array","array":{"dataType":"refObject","ref":"MarketRecord"},"required":true},
            "total": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MarketNodeRecord": {
        "dataType": "refObject",
        "properties": {
            "address": {"dataType":"string","required":true},
            "status": {"ref":"NodeStatus","required":true},
            "specs": {"ref":"NodeSpecs","required":true},
            "lastSeenAt": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ListMarketNodesResponse": {
        "dataType": "refObject",
        "properties": {
            "nodes": {"dataType":"array","array":{"dataType":"refObject","ref":"MarketNodeRecord"},"required":true},
            "total": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BenchmarkRecord": {
        "dataType": "refObject",
        "properties": {
            "slug": {"dataType":"string","required":true},
            "operation": {"ref":"BenchmarkOperation","required":true},
            "requirements": {"dataType":"array","array":{"dataType":"refAlias","ref":"Record_string.unknown_"},"required":true},
            "supportedMarkets": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "createdAt": {"dataType":"string","required":true},
            "updatedAt": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ListBenchmarksResponse": {
        "dataType": "refObject",
        "properties": {
            "benchmarks": {"dataType":"array","array":{"dataType":"refObject","ref":"BenchmarkRecord"},"required":true},
            "total": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "GetBenchmarkResponse": {
        "dataType": "refObject",
        "properties": {
            "slug": {"dataType":"string","required":true},
            "operation": {"ref":"BenchmarkOperation","required":true},
            "requirements": {"dataType":"array","array":{"dataType":"refAlias","ref":"Record_string.unknown_"},"required":true},
            "supportedMarkets": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "createdAt": {"dataType":"string","required":true},
            "updatedAt": {"dataType":"string","required":true},
            "thresholds": {"dataType":"array","array":{"dataType":"refObject","ref":"ThresholdRecord"},"required":true},
            "marketThresholds": {"dataType":"array","array":{"dataType":"refObject","ref":"MarketThresholdRecord"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ListThresholdsResponse": {
        "dataType": "refObject",
        "properties": {
            "thresholds": {"dataType":"array","array":{"dataType":"refObject","ref":"ThresholdRecord"},"required":true},
            "marketThresholds": {"dataType":"array","array":{"dataType":"refObject","ref":"MarketThresholdRecord"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
};
const templateService = new ExpressTemplateService(models, {"noImplicitAdditionalProperties":"throw-on-extras","bodyCoercion":false});

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa




export function RegisterRoutes(app: Router) {

    // ###########################################################################################################
    //  NOTE: If you do not see routes for all of your controllers in this file, then you might not have informed tsoa of where to look
    //      Please look into the "controllerPathGlobs" config option described in the readme: https://github.com/lukeautry/tsoa
    // ###########################################################################################################


    
        const argsBenchmarkTemplatesController_applyBenchmarkTemplates: Record<string, TsoaRoute.ParameterSchema> = {
                _authorization: {"in":"header","name":"authorization","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"ApplyBenchmarkTemplatesRequest"},
        };
        app.post('/benchmark-templates/apply',
            authenticateMiddleware([{"bearerAuth":["benchmarks:manage"]}]),
            ...(fetchMiddlewares<RequestHandler>(BenchmarkTemplatesController)),
            ...(fetchMiddlewares<RequestHandler>(BenchmarkTemplatesController.prototype.applyBenchmarkTemplates)),

            async function BenchmarkTemplatesController_applyBenchmarkTemplates(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsBenchmarkTemplatesController_applyBenchmarkTemplates, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<BenchmarkTemplatesController>(BenchmarkTemplatesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'applyBenchmarkTemplates',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsNodesController_registerNode: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"RegisterNodeRequest"},
        };
        app.post('/nodes/register',
            authenticateMiddleware([{"nodeSignature":[]}]),
            ...(fetchMiddlewares<RequestHandler>(NodesController)),
            ...(fetchMiddlewares<RequestHandler>(NodesController.prototype.registerNode)),

            async function NodesController_registerNode(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsNodesController_registerNode, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<NodesController>(NodesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'registerNode',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsNodesController_listNodes: Record<string, TsoaRoute.ParameterSchema> = {
                market: {"in":"query","name":"market","dataType":"string","validators":{"maxLength":{"value":200}}},
                limit: {"in":"query","name":"limit","dataType":"integer","validators":{"isInt":{"errorMsg":"limit"},"minimum":{"value":1},"maximum":{"value":1000}}},
                offset: {"in":"query","name":"offset","dataType":"integer","validators":{"isInt":{"errorMsg":"offset"},"minimum":{"value":0},"maximum":{"value":1000000000}}},
        };
        app.get('/nodes',
            authenticateMiddleware([{"bearerAuth":["markets:read"]}]),
            ...(fetchMiddlewares<RequestHandler>(NodesController)),
            ...(fetchMiddlewares<RequestHandler>(NodesController.prototype.listNodes)),

            async function NodesController_listNodes(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsNodesController_listNodes, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<NodesController>(NodesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listNodes',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsNodesController_getNode: Record<string, TsoaRoute.ParameterSchema> = {
                node: {"in":"path","name":"node","required":true,"dataType":"string","validators":{"maxLength":{"value":100}}},
        };
        app.get('/nodes/:node',
            authenticateMiddleware([{"bearerAuth":["markets:read"]}]),
            ...(fetchMiddlewares<RequestHandler>(NodesController)),
            ...(fetchMiddlewares<RequestHandler>(NodesController.prototype.getNode)),

            async function NodesController_getNode(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsNodesController_getNode, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<NodesController>(NodesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getNode',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsNodesController_disableNode: Record<string, TsoaRoute.ParameterSchema> = {
                node: {"in":"path","name":"node","required":true,"dataType":"string","validators":{"maxLength":{"value":100}}},
                body: {"in":"body","name":"body","ref":"NodeControlRequest"},
        };
        app.post('/nodes/:node/disable',
            authenticateMiddleware([{"bearerAuth":["nodes:manage"]}]),
            ...(fetchMiddlewares<RequestHandler>(NodesController)),
            ...(fetchMiddlewares<RequestHandler>(NodesController.prototype.disableNode)),

            async function NodesController_disableNode(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsNodesController_disableNode, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<NodesController>(NodesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'disableNode',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsNodesController_enableNode: Record<string, TsoaRoute.ParameterSchema> = {
                node: {"in":"path","name":"node","required":true,"dataType":"string","validators":{"maxLength":{"value":100}}},
        };
        app.post('/nodes/:node/enable',
            authenticateMiddleware([{"bearerAuth":["nodes:manage"]}]),
            ...(fetchMiddlewares<RequestHandler>(NodesController)),
            ...(fetchMiddlewares<RequestHandler>(NodesController.prototype.enableNode)),

            async function NodesController_enableNode(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsNodesController_enableNode, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<NodesController>(NodesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'enableNode',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsNodesController_removeNode: Record<string, TsoaRoute.ParameterSchema> = {
                node: {"in":"path","name":"node","required":true,"dataType":"string","validators":{"maxLength":{"value":100}}},
                body: {"in":"body","name":"body","ref":"NodeControlRequest"},
        };
        app.post('/nodes/:node/remove',
            authenticateMiddleware([{"bearerAuth":["nodes:manage"]}]),
            ...(fetchMiddlewares<RequestHandler>(NodesController)),
            ...(fetchMiddlewares<RequestHandler>(NodesController.prototype.removeNode)),

            async function NodesController_removeNode(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsNodesController_removeNode, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<NodesController>(NodesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'removeNode',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsInternalNodesController_findNode: Record<string, TsoaRoute.ParameterSchema> = {
                node: {"in":"path","name":"node","required":true,"dataType":"string"},
        };
        app.get('/internal/nodes/:node',
            authenticateMiddleware([{"internal":[]}]),
            ...(fetchMiddlewares<RequestHandler>(InternalNodesController)),
            ...(fetchMiddlewares<RequestHandler>(InternalNodesController.prototype.findNode)),

            async function InternalNodesController_findNode(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsInternalNodesController_findNode, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<InternalNodesController>(InternalNodesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'findNode',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsHeartbeatsController_heartbeat: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"NodeHeartbeatRequest"},
        };
        app.post('/nodes/heartbeat',
            authenticateMiddleware([{"nodeSignature":[]}]),
            ...(fetchMiddlewares<RequestHandler>(HeartbeatsController)),
            ...(fetchMiddlewares<RequestHandler>(HeartbeatsController.prototype.heartbeat)),

            async function HeartbeatsController_heartbeat(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsHeartbeatsController_heartbeat, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<HeartbeatsController>(HeartbeatsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'heartbeat',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMarketsController_createMarket: Record<string, TsoaRoute.ParameterSchema> = {
                body: {"in":"body","name":"body","required":true,"ref":"CreateMarketRequest"},
        };
        app.post('/markets',
            authenticateMiddleware([{"bearerAuth":["markets:manage"]}]),
            ...(fetchMiddlewares<RequestHandler>(MarketsController)),
            ...(fetchMiddlewares<RequestHandler>(MarketsController.prototype.createMarket)),

            async function MarketsController_createMarket(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMarketsController_createMarket, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MarketsController>(MarketsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'createMarket',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMarketsController_updateMarket: Record<string, TsoaRoute.ParameterSchema> = {
                market: {"in":"path","name":"market","required":true,"dataType":"string","validators":{"maxLength":{"value":200}}},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateMarketRequest"},
        };
        app.post('/markets/:market/update',
            authenticateMiddleware([{"bearerAuth":["markets:manage"]}]),
            ...(fetchMiddlewares<RequestHandler>(MarketsController)),
            ...(fetchMiddlewares<RequestHandler>(MarketsController.prototype.updateMarket)),

            async function MarketsController_updateMarket(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMarketsController_updateMarket, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MarketsController>(MarketsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'updateMarket',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMarketsController_rotateJoinToken: Record<string, TsoaRoute.ParameterSchema> = {
                market: {"in":"path","name":"market","required":true,"dataType":"string","validators":{"maxLength":{"value":200}}},
                body: {"in":"body","name":"body","ref":"RotateJoinTokenRequest"},
        };
        app.post('/markets/:market/rotate-join-token',
            authenticateMiddleware([{"bearerAuth":["nodes:manage"]}]),
            ...(fetchMiddlewares<RequestHandler>(MarketsController)),
            ...(fetchMiddlewares<RequestHandler>(MarketsController.prototype.rotateJoinToken)),

            async function MarketsController_rotateJoinToken(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMarketsController_rotateJoinToken, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MarketsController>(MarketsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'rotateJoinToken',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMarketsController_listMarkets: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/markets',
            authenticateMiddleware([{"bearerAuth":["markets:read"]}]),
            ...(fetchMiddlewares<RequestHandler>(MarketsController)),
            ...(fetchMiddlewares<RequestHandler>(MarketsController.prototype.listMarkets)),

            async function MarketsController_listMarkets(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMarketsController_listMarkets, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MarketsController>(MarketsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listMarkets',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMarketsController_getMarket: Record<string, TsoaRoute.ParameterSchema> = {
                market: {"in":"path","name":"market","required":true,"dataType":"string","validators":{"maxLength":{"value":200}}},
        };
        app.get('/markets/:market',
            authenticateMiddleware([{"bearerAuth":["markets:read"]}]),
            ...(fetchMiddlewares<RequestHandler>(MarketsController)),
            ...(fetchMiddlewares<RequestHandler>(MarketsController.prototype.getMarket)),

            async function MarketsController_getMarket(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMarketsController_getMarket, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MarketsController>(MarketsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getMarket',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsInternalMarketsController_resolveMarket: Record<string, TsoaRoute.ParameterSchema> = {
                market: {"in":"path","name":"market","required":true,"dataType":"string"},
        };
        app.get('/internal/markets/:market',
            authenticateMiddleware([{"internal":[]}]),
            ...(fetchMiddlewares<RequestHandler>(InternalMarketsController)),
            ...(fetchMiddlewares<RequestHandler>(InternalMarketsController.prototype.resolveMarket)),

            async function InternalMarketsController_resolveMarket(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsInternalMarketsController_resolveMarket, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<InternalMarketsController>(InternalMarketsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'resolveMarket',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsInternalMarketsController_listMarketNodes: Record<string, TsoaRoute.ParameterSchema> = {
                market: {"in":"path","name":"market","required":true,"dataType":"string"},
                limit: {"in":"query","name":"limit","dataType":"double"},
        };
        app.get('/internal/markets/:market/nodes',
            authenticateMiddleware([{"internal":[]}]),
            ...(fetchMiddlewares<RequestHandler>(InternalMarketsController)),
            ...(fetchMiddlewares<RequestHandler>(InternalMarketsController.prototype.listMarketNodes)),

            async function InternalMarketsController_listMarketNodes(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsInternalMarketsController_listMarketNodes, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<InternalMarketsController>(InternalMarketsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listMarketNodes',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsBenchmarksController_listBenchmarks: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/benchmarks',
            authenticateMiddleware([{"bearerAuth":["markets:read"]}]),
            ...(fetchMiddlewares<RequestHandler>(BenchmarksController)),
            ...(fetchMiddlewares<RequestHandler>(BenchmarksController.prototype.listBenchmarks)),

            async function BenchmarksController_listBenchmarks(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsBenchmarksController_listBenchmarks, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<BenchmarksController>(BenchmarksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listBenchmarks',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsBenchmarksController_getBenchmark: Record<string, TsoaRoute.ParameterSchema> = {
                slug: {"in":"path","name":"slug","required":true,"dataType":"string","validators":{"maxLength":{"value":128}}},
        };
        app.get('/benchmarks/:slug',
            authenticateMiddleware([{"bearerAuth":["markets:read"]}]),
            ...(fetchMiddlewares<RequestHandler>(BenchmarksController)),
            ...(fetchMiddlewares<RequestHandler>(BenchmarksController.prototype.getBenchmark)),

            async function BenchmarksController_getBenchmark(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsBenchmarksController_getBenchmark, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<BenchmarksController>(BenchmarksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getBenchmark',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsBenchmarksController_listThresholds: Record<string, TsoaRoute.ParameterSchema> = {
                group: {"in":"query","name":"group","dataType":"string"},
        };
        app.get('/thresholds',
            authenticateMiddleware([{"bearerAuth":["markets:read"]}]),
            ...(fetchMiddlewares<RequestHandler>(BenchmarksController)),
            ...(fetchMiddlewares<RequestHandler>(BenchmarksController.prototype.listThresholds)),

            async function BenchmarksController_listThresholds(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsBenchmarksController_listThresholds, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<BenchmarksController>(BenchmarksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listThresholds',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa


    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    function authenticateMiddleware(security: TsoaRoute.Security[] = []) {
        return async function runAuthenticationMiddleware(request: any, response: any, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            // keep track of failed auth attempts so we can hand back the most
            // recent one.  This behavior was previously existing so preserving it
            // here
            const failedAttempts: any[] = [];
            const pushAndRethrow = (error: any) => {
                failedAttempts.push(error);
                throw error;
            };

            const secMethodOrPromises: Promise<any>[] = [];
            for (const secMethod of security) {
                if (Object.keys(secMethod).length > 1) {
                    const secMethodAndPromises: Promise<any>[] = [];

                    for (const name in secMethod) {
                        secMethodAndPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }

                    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

                    secMethodOrPromises.push(Promise.all(secMethodAndPromises)
                        .then(users => { return users[0]; }));
                } else {
                    for (const name in secMethod) {
                        secMethodOrPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }
                }
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            try {
                request['user'] = await Promise.any(secMethodOrPromises);

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }

                next();
            }
            catch(err) {
                // Show most recent error as response
                const error = failedAttempts.pop();
                error.status = error.status || 401;

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }
                next(error);
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        }
    }

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
}

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
