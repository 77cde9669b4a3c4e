/* hbs_format.c — the records, runs and sections of a spilled round
** (hbs_format.h), shared by the writer (hb_spill.c) and the reader
** (hb_readback.c). */
#include "hbs_format.h"
#include "spill.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

size_t hbs_lower_u32(const uint32_t *a, size_t n, uint64_t key)
{
    /* a key past every 32-bit id (a section's end) is past the array */
    return key > UINT32_MAX ? n : gnn_lower_u32(a, n, (uint32_t)key);
}

void hbs_sbatch_release(hb_sbatch *s)
{
    free(s->srows);
    free(s->seids);
    free(s->esec);
    free(s->yrows);
    free(s->y);
    free(s->lk_words);
    spill_run_free(s->run);
    memset(s, 0, sizeof *s);
}

void hbs_round_release(hb_round *r)
{
    for (int i = 0; i < r->nsb; i++) hbs_sbatch_release(&r->sb[i]);
    r->nsb = 0;
}

/* Their sorted rows (until gathered) and labels, each run's write buffer
** and the writes in flight, and the outputs of the one batch being
** spilled (held only while sampling; counted in every phase, which keeps
** the read-ahead check on the safe side). */
size_t hbs_records_bytes(const plan *p, const hb_round *r)
{
    size_t sum = 0;
    for (int i = 0; i < r->nsb; i++)
        sum += (r->sb[i].srows ? r->sb[i].nn * 4 : 0) +
               (r->sb[i].seids ? r->sb[i].ne * 4 : 0) +
               (size_t)r->sb[i].nseeds * 16 + sizeof(hb_sbatch) +
               (r->sb[i].npos + r->sb[i].nneg) * 24;
    sum += (size_t)(r->nsb + SPILL_WRITE_DEPTH) * p->spill_wbuf;
    return sum + (size_t)p->spill_topo_est;
}

/* The node sections: the features, or each type's. */
static int node_sections(const plan *p, const hbs_tables *tb,
                         hbs_section *out)
{
    int n = 0;
    if (p->has_feat)
        out[n++] = (hbs_section){&p->feat, tb->feat, 0, UINT64_MAX,
                                 plan_x_row_bytes(p), 1, 0, -1};
    for (int t = 0; t < p->ntypes; t++) {   /* none in a node plan */
        const plan_type *pt = &p->types[t];
        if (pt->has_feat && n < PLAN_SPILL_SECTIONS)
            out[n++] = (hbs_section){&pt->feat, tb->type_feat[t],
                                     (uint64_t)pt->first,
                                     (uint64_t)(pt->first + pt->count),
                                     (size_t)pt->feat.dim * sizeof(float), 0,
                                     0, -1};
    }
    return n;
}

int hbs_sections(const plan *p, const hbs_tables *tb, hbs_section *out)
{
    int n = node_sections(p, tb, out);
    if (p->has_efeat)
        out[n++] = (hbs_section){&p->efeat, tb->efeat, 0, UINT64_MAX,
                                 (size_t)p->efeat.dim * sizeof(float), 0, 1,
                                 -1};
    for (int r = 0; r < p->nrels; r++) {
        const plan_rel *pr = &p->rels[r];
        if (pr->has_efeat && n < PLAN_SPILL_SECTIONS)
            out[n++] = (hbs_section){&pr->efeat, tb->rels[r].ef, 0,
                                     UINT64_MAX,
                                     (size_t)pr->efeat.dim * sizeof(float),
                                     0, 1, r};
    }
    return n;
}

const uint32_t *hbs_section_ids(const hbs_section *sec, const hb_sbatch *s,
                                const uint32_t *srows, const uint32_t *seids,
                                size_t *lo, size_t *n)
{
    if (sec->edges) {
        size_t r = sec->rel < 0 ? 0 : (size_t)sec->rel;
        *lo = s->esec[r];
        *n = s->esec[r + 1] - s->esec[r];
        return seids + *lo;
    }
    *lo = hbs_lower_u32(srows, s->nn, sec->base);
    *n = hbs_lower_u32(srows, s->nn, sec->end) - *lo;
    return srows + *lo;
}
