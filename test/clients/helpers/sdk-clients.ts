import { createOpenAI } from '@ai-sdk/openai';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, Runner, setDefaultOpenAIClient, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateObject, generateText, stepCountIs, streamText, tool as aiTool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';

/**
 * What each SDK does in the real-client tests (test/clients/*.test.ts) and in the capture of
 * their requests (test/clients/capture.ts), written as an application would:
 * the gateway's base URL and a key, nothing else (docs/clients.md). Each scenario returns what
 * the application gets; the tests assert it, the capture only needs the requests it causes.
 */

export interface Target {
  /** The gateway's `…/v1`. */
  baseURL: string;
  key: string;
  model: string;
}

/** The tool every scenario offers: the simulators call it with `{city: "sample"}` (sampled from its schema). */
export const WEATHER = { name: 'get_weather', description: 'The weather in a city', answer: (city: string): string => `sunny in ${city}` };
const city = z.object({ city: z.string() });

/** The object every structured-output scenario asks for, and what the simulators answer to it. */
export const REPORT = z.object({ name: z.string(), count: z.number() });
export const SIMULATED_REPORT = { name: 'sample', count: 1 };
/** The same shape as a JSON Schema, for a client that takes one (Codex's `--output-schema`). */
export const REPORT_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, count: { type: 'number' } },
  required: ['name', 'count'],
  additionalProperties: false,
};

export interface TextRun {
  text: string;
}
export interface ToolLoopRun extends TextRun {
  /** The cities the application's tool was called for. */
  calledWith: string[];
}

/** The Vercel AI SDK, `openai(model)` (Responses) or `openai.chat(model)` (chat). */
export function aiSdk(target: Target, api: 'responses' | 'chat') {
  const provider = createOpenAI({ baseURL: target.baseURL, apiKey: target.key });
  const model = api === 'chat' ? provider.chat(target.model) : provider(target.model);
  return {
    generate: async (): Promise<TextRun> => ({ text: (await generateText({ model, prompt: 'Say hello.' })).text }),
    stream: async (): Promise<TextRun & { deltas: number }> => {
      const result = streamText({ model, prompt: 'Say hello.' });
      let deltas = 0;
      for await (const _delta of result.textStream) deltas += 1;
      return { text: await result.text, deltas };
    },
    toolLoop: async (): Promise<ToolLoopRun> => {
      const calledWith: string[] = [];
      const weather = aiTool({
        description: WEATHER.description,
        inputSchema: city,
        execute: async ({ city: name }) => {
          calledWith.push(name);
          return WEATHER.answer(name);
        },
      });
      const result = await generateText({ model, prompt: 'What is the weather in Paris?', tools: { [WEATHER.name]: weather }, stopWhen: stepCountIs(3) });
      return { text: result.text, calledWith };
    },
    object: async (): Promise<unknown> => (await generateObject({ model, schema: REPORT, prompt: 'Report on the city.' })).object,
  };
}

/** The OpenAI Agents SDK on its default provider (Responses), its tracer off (it would post traces to the vendor). */
export function agentsSdk(target: Target) {
  setDefaultOpenAIClient(new OpenAI({ baseURL: target.baseURL, apiKey: target.key }));
  setTracingDisabled(true);
  const runner = new Runner();
  return {
    toolAgent: async (): Promise<ToolLoopRun> => {
      const calledWith: string[] = [];
      const weather = agentTool({
        name: WEATHER.name,
        description: WEATHER.description,
        parameters: city,
        execute: async ({ city: name }) => {
          calledWith.push(name);
          return WEATHER.answer(name);
        },
      });
      const agent = new Agent({ name: 'Weather', instructions: 'Answer with the tool.', model: target.model, tools: [weather] });
      const result = await runner.run(agent, 'What is the weather in Paris?');
      return { text: result.finalOutput ?? '', calledWith };
    },
    outputAgent: async (): Promise<unknown> => {
      const agent = new Agent({ name: 'Reporter', instructions: 'Report on the city.', model: target.model, outputType: REPORT });
      return (await runner.run(agent, 'Report on Paris.')).finalOutput;
    },
  };
}

/** LangChain's `ChatOpenAI`, on chat (its default) or with `useResponsesApi`. */
export function langChain(target: Target, useResponsesApi: boolean) {
  const llm = new ChatOpenAI({ model: target.model, apiKey: target.key, configuration: { baseURL: target.baseURL }, useResponsesApi });
  return {
    invoke: async (): Promise<TextRun> => ({ text: (await llm.invoke('Say hello.')).text }),
    toolCall: async (): Promise<Array<{ name: string; args: unknown }>> => {
      const weather = langchainTool(async ({ city: name }: { city: string }) => WEATHER.answer(name), {
        name: WEATHER.name,
        description: WEATHER.description,
        schema: city,
      });
      const message = await llm.bindTools([weather]).invoke('What is the weather in Paris?');
      return (message.tool_calls ?? []).map((call) => ({ name: call.name, args: call.args }));
    },
    structured: async (): Promise<unknown> => llm.withStructuredOutput(REPORT).invoke('Report on Paris.'),
  };
}
