// libs.mjs — last year's majors, imported from this folder's own
// node_modules (see package.json for why they live apart), in the shape
// oracle/clients.mjs drives: the same names as today's majors, plus what
// changed in their APIs.
import OpenAI from 'openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText, jsonSchema, Output } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import {
  AIMessage, HumanMessage, SystemMessage, ToolMessage, ChatMessage,
} from '@langchain/core/messages';

export const LIB = {
  OpenAI, createOpenAICompatible, generateText, streamText, jsonSchema, Output, ChatOpenAI,
  AIMessage, HumanMessage, SystemMessage, ToolMessage, ChatMessage,
  // ai 5 reads a structured answer from `experimental_output` (ai 7: `output`)
  outputKey: 'experimental_output',
};
