/* fuzz_input.h — what a fuzz input means, shared by the libFuzzer target
 * (fuzz_stream.c) and the allocation-failure run (tests/torture/), so a
 * seed is decoded the same way by both: the first byte picks the request
 * (and bit 7 a JSON instead of an event-stream content type), the second
 * how the body is cut into pieces (and bit 7 the llama-server profile
 * instead of openai's), the rest is the body.  Running it is the caller's
 * business. */
#ifndef OC_FUZZ_INPUT_H
#define OC_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static const char *const oc_fuzz_requests[] = {
  "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
  "{\"model\":\"m\",\"stream\":true,\"tool_choice\":\"required\",\"parallel_tool_calls\":false,"
  "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
  "{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"string\"}},\"required\":[\"location\"]}}}],"
  "\"messages\":[]}",
  "{\"model\":\"m\",\"stream\":true,\"n\":2,\"stream_options\":{\"include_usage\":true},\"messages\":[]}",
  "{\"model\":\"m\",\"stream\":true,\"response_format\":{\"type\":\"json_schema\",\"json_schema\":"
  "{\"name\":\"p\",\"schema\":{\"type\":\"object\",\"required\":[\"a\"]}}},\"messages\":[]}",
  "{\"model\":\"m\",\"prompt\":\"x\",\"stream\":true}",
};

#define OC_FUZZ_MAX_PIECES 4096

struct oc_fuzz_input {
  const char *request;       /* the request body */
  const char *path;          /* its endpoint */
  const char *content_type;
  const char *profile;
  const char *body;          /* inside the input */
  size_t len;
  size_t pieces[OC_FUZZ_MAX_PIECES]; /* piece ends */
  size_t npieces;
};

/* 0 when the input is too short to mean anything. */
static inline int oc_fuzz_input_decode(const uint8_t *data, size_t size, struct oc_fuzz_input *in)
{
  if(size < 2)
    return 0;
  size_t which = data[0] % (sizeof(oc_fuzz_requests) / sizeof(oc_fuzz_requests[0]));
  size_t piece = 1 + data[1] % 64;
  in->request = oc_fuzz_requests[which];
  in->path = which == 4 ? "/v1/completions" : "/v1/chat/completions";
  in->content_type = data[0] & 0x80 ? "application/json" : "text/event-stream";
  in->profile = data[1] & 0x80 ? "llama-server" : "openai";
  in->body = (const char *)data + 2;
  in->len = size - 2;
  in->npieces = 0;
  for(size_t at = piece; at < size - 2 && in->npieces < OC_FUZZ_MAX_PIECES; at += piece)
    in->pieces[in->npieces++] = at;
  return 1;
}

#endif
