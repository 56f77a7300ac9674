/* report-pngstat.c — a test helper for report-html.sh: decode a PNG
 * (8-bit RGB or RGBA, not interlaced: what Chromium's --screenshot writes)
 * with zlib and print "WIDTH HEIGHT COLOURS", COLOURS being the number of
 * distinct pixel values (counted up to 65536), so a test can tell a
 * rendered page from a blank one.  Exit 1 on anything it cannot read. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util.h"

#define COLOUR_CAP 65536u
#define SET_SIZE (COLOUR_CAP * 4u) /* open addressing, load <= 1/4 */

static uint32_t be32(const unsigned char *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int main(int argc, char **argv)
{
  char err[512];
  char *file = NULL;
  size_t len = 0;
  if(argc != 2) {
    fprintf(stderr, "usage: report-pngstat FILE.png\n");
    return 2;
  }
  if(oc_read_file(argv[1], OC_CAP_FILE, &file, &len, err, sizeof(err))) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  const unsigned char *p = (const unsigned char *)file;
  int status = 1;
  struct oc_buf idat;
  oc_buf_init(&idat, OC_CAP_FILE);
  unsigned char *raw = NULL;
  uint32_t *set = NULL;
  uint32_t w = 0, h = 0;
  int channels = 0;
  if(len < 8 || memcmp(p, "\x89PNG\r\n\x1a\n", 8) != 0) {
    fprintf(stderr, "%s: not a PNG\n", argv[1]);
    goto out;
  }
  for(size_t off = 8; off + 12 <= len;) {
    uint32_t n = be32(p + off);
    const unsigned char *type = p + off + 4, *data = p + off + 8;
    if(n > len - off - 12) {
      fprintf(stderr, "%s: chunk runs past the end\n", argv[1]);
      goto out;
    }
    if(memcmp(type, "IHDR", 4) == 0 && n >= 13) {
      w = be32(data);
      h = be32(data + 4);
      if(data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0) {
        fprintf(stderr, "%s: only 8-bit RGB/RGBA, not interlaced\n", argv[1]);
        goto out;
      }
      channels = data[9] == 6 ? 4 : 3;
    }
    else if(memcmp(type, "IDAT", 4) == 0 && oc_buf_add(&idat, data, n)) {
      fprintf(stderr, "%s: too large\n", argv[1]);
      goto out;
    }
    else if(memcmp(type, "IEND", 4) == 0)
      break;
    off += 12 + (size_t)n;
  }
  if(!channels || !w || !h || w > 20000 || h > 20000) {
    fprintf(stderr, "%s: no usable IHDR\n", argv[1]);
    goto out;
  }
  size_t stride = (size_t)w * (size_t)channels;
  uLongf rawlen = (uLongf)((stride + 1) * h);
  raw = malloc(rawlen);
  if(!raw || uncompress(raw, &rawlen, (const Bytef *)idat.data, (uLong)idat.len) != Z_OK ||
     rawlen != (stride + 1) * h) {
    fprintf(stderr, "%s: image data does not inflate to %ux%u\n", argv[1], w, h);
    goto out;
  }
  /* undo the per-scanline filters in place */
  for(uint32_t y = 0; y < h; y++) {
    unsigned char *line = raw + (size_t)y * (stride + 1);
    unsigned char *cur = line + 1, *prev = y ? line - stride : NULL;
    int f = line[0];
    for(size_t x = 0; x < stride; x++) {
      int a = x >= (size_t)channels ? cur[x - (size_t)channels] : 0;
      int b = prev ? prev[x] : 0;
      int c = prev && x >= (size_t)channels ? prev[x - (size_t)channels] : 0;
      int v = cur[x];
      switch(f) {
      case 0: break;
      case 1: v += a; break;
      case 2: v += b; break;
      case 3: v += (a + b) / 2; break;
      case 4: v += paeth(a, b, c); break;
      default:
        fprintf(stderr, "%s: bad filter %d on line %u\n", argv[1], f, y);
        goto out;
      }
      cur[x] = (unsigned char)v;
    }
  }
  set = calloc(SET_SIZE, sizeof(*set));
  if(!set)
    goto out;
  unsigned colours = 0;
  for(uint32_t y = 0; y < h && colours < COLOUR_CAP; y++) {
    const unsigned char *px = raw + (size_t)y * (stride + 1) + 1;
    for(uint32_t x = 0; x < w && colours < COLOUR_CAP; x++, px += channels) {
      /* +1 so that 0 marks an empty slot */
      uint32_t v = ((uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2]) + 1;
      uint32_t i = (v * 2654435761u) % SET_SIZE;
      while(set[i] && set[i] != v)
        i = (i + 1) % SET_SIZE;
      if(!set[i]) {
        set[i] = v;
        colours++;
      }
    }
  }
  printf("%u %u %u\n", w, h, colours);
  status = 0;
out:
  free(set);
  free(raw);
  oc_buf_free(&idat);
  free(file);
  return status;
}
