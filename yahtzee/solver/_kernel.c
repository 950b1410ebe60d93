/*
 * The optional compiled kernel of the solver: the values inside a turn, state by state.
 *
 * It does, in plain C over the same arrays, what yahtzee/solver/dynamic.py does
 * with numpy: for a state between turns, the value of scoring each final roll
 * (the best open box, or the special choices of a Yahtzee roll), each keep's
 * mean over the missing dice with one and with two rolls left, each roll's best
 * keep, and the state's expected points to come.  States are worked on BLOCK at
 * a time, the same operations for each, so that the compiler can use vector
 * instructions; the sums are taken in numpy's order (the six children of a
 * keep left to right, then times 1/6).  It also works out the outlook's chance
 * to finish first (yahtzee/solver/outlook.py), player by player.  Every array
 * comes from Python through the buffer protocol; no numpy header is needed to
 * build it.  The work runs without the interpreter lock, so that threads share
 * it (but for entry_steps and best_entries, a few microseconds each).
 *
 * yahtzee/solver/accel.py is the only user; yahtzee/solver/_kernel.pyi types it.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FACES 6
#define NUM_KEEPS 462
#define NUM_ROLLS 252
#define ROLL_START 210
#define MAX_PARENTS 5
#define MAX_SUB_KEEPS 32
#define MAX_CATEGORIES 16
#define MAX_ENTRIES 256  /* a box's distinct points, all boxes together (entry numbers fit a byte) */
#define MAX_SPECIALS 16
#define MAX_SLOTS (MAX_CATEGORIES + 1)
#define BLOCK 8
#define TIE 1e-9

/* The keeps, set once by set_keeps(): children of the keeps under five dice,
 * parents (one die fewer) of every keep, the chance of each roll, and each
 * roll's distinct keeps in tie-breaking order (the roll itself first). */
static int keeps_ready = 0;
static uint16_t children[ROLL_START][FACES];
static uint8_t parent_count[NUM_KEEPS];
static uint16_t parents[NUM_KEEPS][MAX_PARENTS];
static double roll_chance[NUM_ROLLS];
static uint8_t sub_keep_count[NUM_ROLLS];
static uint16_t sub_keeps[NUM_ROLLS][MAX_SUB_KEEPS];

/* ---- reading buffers ------------------------------------------------------ */

static int
get_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, const char *what, int writable)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        return -1;
    }
    if (view->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: items of %zd bytes expected, not %zd",
                     what, itemsize, view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static Py_ssize_t
items(const Py_buffer *view)
{
    return view->len / view->itemsize;
}

/* ---- set_keeps ------------------------------------------------------------- */

static PyObject *
set_keeps(PyObject *self, PyObject *args)
{
    PyObject *objs[4];
    Py_buffer views[4];
    memset(views, 0, sizeof views);
    static const char *names[4] = {"children", "parents", "chances", "sub-keeps"};
    static const Py_ssize_t sizes[4] = {ROLL_START * FACES, NUM_KEEPS * MAX_PARENTS, NUM_ROLLS,
                                        NUM_ROLLS * MAX_SUB_KEEPS};
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOO", &objs[0], &objs[1], &objs[2], &objs[3])) {
        return NULL;
    }
    int got = 0, ok = 1;
    for (; got < 4 && ok; got++) {
        if (get_buffer(objs[got], &views[got], 8, names[got], 0) < 0) {
            break;
        }
        ok = items(&views[got]) == sizes[got];
    }
    if (got < 4 && ok) {
        for (int i = 0; i < got; i++) {
            PyBuffer_Release(&views[i]);
        }
        return NULL;
    }
    const int64_t *k = views[0].buf, *p = views[1].buf, *sub = views[3].buf;
    for (int i = 0; ok && i < ROLL_START * FACES; i++) {
        ok = k[i] > i / FACES && k[i] < NUM_KEEPS;
    }
    for (int i = 0; ok && i < NUM_KEEPS; i++) {
        int count = 0;
        for (int j = 0; j < MAX_PARENTS; j++) {
            int64_t q = p[i * MAX_PARENTS + j];
            if (q >= 0) {
                ok = ok && q < i && count == j;
                count++;
            }
        }
        parent_count[i] = (uint8_t)count;
    }
    for (int r = 0; ok && r < NUM_ROLLS; r++) {
        int count = 0;
        for (int j = 0; j < MAX_SUB_KEEPS; j++) {
            int64_t q = sub[r * MAX_SUB_KEEPS + j];
            if (q >= 0) {
                ok = ok && q < NUM_KEEPS && count == j && (j > 0 || q == ROLL_START + r);
                count++;
            }
        }
        sub_keep_count[r] = (uint8_t)count;
    }
    if (ok) {
        for (int i = 0; i < ROLL_START * FACES; i++) {
            children[i / FACES][i % FACES] = (uint16_t)k[i];
        }
        for (int i = 0; i < NUM_KEEPS * MAX_PARENTS; i++) {
            parents[i / MAX_PARENTS][i % MAX_PARENTS] = (uint16_t)(p[i] < 0 ? 0 : p[i]);
        }
        for (int i = 0; i < NUM_ROLLS * MAX_SUB_KEEPS; i++) {
            sub_keeps[i / MAX_SUB_KEEPS][i % MAX_SUB_KEEPS] = (uint16_t)(sub[i] < 0 ? 0 : sub[i]);
        }
        memcpy(roll_chance, views[2].buf, sizeof roll_chance);
        keeps_ready = 1;
    }
    for (int i = 0; i < got; i++) {
        PyBuffer_Release(&views[i]);
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "inconsistent keep tables");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The position of the first keep of `roll` within TIE of the best; the values of
   keeps are table[k * width] and of scoring now leaf[roll * width]. */
static inline int
first_best_keep(const double *table, const double *leaf, Py_ssize_t width, int roll)
{
    double worth[MAX_SUB_KEEPS];
    double top = -INFINITY;
    int count = sub_keep_count[roll];
    worth[0] = leaf[roll * width];
    for (int j = 1; j < count; j++) {
        worth[j] = table[sub_keeps[roll][j] * width];
    }
    for (int j = 0; j < count; j++) {
        top = worth[j] > top ? worth[j] : top;
    }
    int pick = 0;
    while (pick < count - 1 && !(worth[pick] >= top - TIE)) {
        pick++;
    }
    return pick;
}

/* Take the buffers of `count` objects, each of its item size and writable flag, in
   order, stopping at the first that fails (its error set); return how many were taken. */
static int
get_buffers(PyObject **objs, Py_buffer *views, int count, const Py_ssize_t *sizes,
            const char *what, const int *writable)
{
    int got = 0;
    while (got < count && get_buffer(objs[got], &views[got], sizes[got], what,
                                     writable[got]) == 0) {
        got++;
    }
    return got;
}

/* Release the first `got` buffers of `views`; return None, or NULL (the error set) unless `ok`. */
static PyObject *
release_views(Py_buffer *views, int got, int ok)
{
    for (int i = 0; i < got; i++) {
        PyBuffer_Release(&views[i]);
    }
    if (!ok) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/*
 * best_keeps(table, leaf, where, rolls, out): for each game, the position among
 * its roll's keeps in tie-breaking order (0: score now) of the first keep within
 * TIE of the best.  `table` (462, width) and `leaf` (252, width) are a batch's
 * turn tables, `where` each game's column and `rolls` its roll (int64), `out`
 * the positions (int64).  best_keep(table, leaf, roll) is the same for one state.
 */
static PyObject *
best_keeps(PyObject *self, PyObject *args)
{
    PyObject *objs[5];
    Py_buffer views[5];
    static const Py_ssize_t sizes[5] = {8, 8, 8, 8, 8};
    static const int writable[5] = {0, 0, 0, 0, 1};
    (void)self;
    if (!keeps_ready) {
        PyErr_SetString(PyExc_RuntimeError, "set_keeps() must be called first");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4])) {
        return NULL;
    }
    int got = get_buffers(objs, views, 5, sizes, "best_keeps", writable);
    int ok = got == 5;
    Py_ssize_t width = ok ? items(&views[1]) / NUM_ROLLS : 0;
    Py_ssize_t games = ok ? items(&views[2]) : 0;
    if (ok && (items(&views[0]) != NUM_KEEPS * width || items(&views[1]) != NUM_ROLLS * width
               || items(&views[3]) != games || items(&views[4]) != games)) {
        PyErr_SetString(PyExc_ValueError, "best_keeps: arrays that do not fit");
        ok = 0;
    }
    const int64_t *where = ok ? views[2].buf : NULL, *rolls = ok ? views[3].buf : NULL;
    for (Py_ssize_t i = 0; ok && i < games; i++) {
        if (where[i] < 0 || where[i] >= width || rolls[i] < 0 || rolls[i] >= NUM_ROLLS) {
            PyErr_SetString(PyExc_ValueError, "best_keeps: no such column or roll");
            ok = 0;
        }
    }
    if (ok) {
        const double *table = views[0].buf, *leaf = views[1].buf;
        int64_t *out = views[4].buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < games; i++) {
            out[i] = first_best_keep(table + where[i], leaf + where[i], width, (int)rolls[i]);
        }
        Py_END_ALLOW_THREADS
    }
    return release_views(views, got, ok);
}

static PyObject *
best_keep(PyObject *self, PyObject *args)
{
    PyObject *o_table, *o_leaf;
    int roll;
    Py_buffer table, leaf;
    (void)self;
    if (!keeps_ready) {
        PyErr_SetString(PyExc_RuntimeError, "set_keeps() must be called first");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOi", &o_table, &o_leaf, &roll)) {
        return NULL;
    }
    if (roll < 0 || roll >= NUM_ROLLS) {
        PyErr_Format(PyExc_ValueError, "no roll %d", roll);
        return NULL;
    }
    if (get_buffer(o_table, &table, 8, "table", 0) < 0) {
        return NULL;
    }
    if (get_buffer(o_leaf, &leaf, 8, "leaf", 0) < 0) {
        PyBuffer_Release(&table);
        return NULL;
    }
    long pick = -1;
    if (items(&table) != NUM_KEEPS || items(&leaf) != NUM_ROLLS) {
        PyErr_SetString(PyExc_ValueError, "best_keep: tables of the wrong size");
    } else {
        pick = first_best_keep(table.buf, leaf.buf, 1, roll);
    }
    PyBuffer_Release(&table);
    PyBuffer_Release(&leaf);
    return pick < 0 ? NULL : PyLong_FromLong(pick);
}

/* ---- the Plan type: one model's constants and value table ------------------ */

typedef struct {
    PyObject_HEAD
    Py_buffer allowed_view, box_view, bonus_view, varies_view;
    int has_views;
    int ready;                   /* made without error: the methods may run */
    const uint8_t *sp_allowed;   /* (rows, specials, slots) */
    const int16_t *sp_box;
    const int16_t *sp_bonus;
    const uint8_t *sp_varies;    /* (rows,) */
    int n_cat, n_slots, n_flags, n_upper, threshold, upper_bonus, flag_cat, bonus_levels;
    int n_specials, n_entries;
    int64_t n_masks, n_values;
    int upper_of[MAX_SLOTS];
    int64_t sp_rolls[MAX_SPECIALS];
    int entry_points[MAX_ENTRIES];
    int entry_box[MAX_ENTRIES];
    int box_first[MAX_CATEGORIES + 1];  /* each box's entries: box_first[c] to box_first[c+1] */
    uint8_t entry_of[MAX_CATEGORIES][NUM_ROLLS];
    int base[NUM_ROLLS][MAX_CATEGORIES];  /* what each roll scores in each box */
    int zero_entry[MAX_CATEGORIES];       /* each box's entry of 0 points, or -1 */
    int scoring_count[MAX_CATEGORIES];    /* how many rolls score more than 0 in each box */
    uint8_t scoring_rolls[MAX_CATEGORIES][NUM_ROLLS];  /* those rolls */
} Plan;

/* Where a choice leads: the reward and the flat position of the next state (-1: none). */
static inline int64_t
step(const Plan *pl, int flag, int64_t mask, int upper, int slot, int box, int bonus,
     int *reward)
{
    int64_t new_mask = slot < pl->n_cat ? mask | ((int64_t)1 << slot) : mask;
    int gain = box + bonus;
    int new_upper = upper;
    if (pl->threshold) {
        if (pl->upper_of[slot]) {
            new_upper = upper + box < pl->threshold ? upper + box : pl->threshold;
        }
        if (upper < pl->threshold && new_upper >= pl->threshold) {
            gain += pl->upper_bonus;
        }
    }
    int new_flag = flag;
    if (pl->flag_cat >= 0) {
        if (slot == pl->flag_cat) {
            new_flag = box > 0;
        }
        if (pl->bonus_levels > 1 && bonus > 0) {
            new_flag += 1;
        }
    }
    *reward = gain;
    if (new_flag >= pl->n_flags) {
        return -1;
    }
    return ((int64_t)new_flag * pl->n_masks + new_mask) * pl->n_upper + new_upper;
}

/* The special choices of one state: (specials, slots) arrays, or none. */
typedef struct {
    int count;
    const int64_t *rolls;
    const uint8_t *allowed;
    const int16_t *box;
    const int16_t *bonus;
} Specials;

/* What one call computes, and where it writes (column `col` of `width`). */
typedef struct {
    double *start;      /* (B,) or NULL */
    double *leaf;       /* (252, width) or NULL */
    double *keep1;      /* (462, width) or NULL */
    double *keep2;      /* (462, width) or NULL */
    int8_t *choice;     /* (252, width) or NULL */
    Py_ssize_t width;
} Outputs;

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Row operations on W values side by side, two at a time where SSE2 is at hand. */

/* to = max(own, from); `own` may be `to` */
static ALWAYS_INLINE void
row_max(double *to, const double *own, const double *from, const int W)
{
#if defined(__SSE2__)
    if (W % 2 == 0) {
        for (int b = 0; b < W; b += 2) {
            _mm_storeu_pd(to + b, _mm_max_pd(_mm_loadu_pd(own + b), _mm_loadu_pd(from + b)));
        }
        return;
    }
#endif
    for (int b = 0; b < W; b++) {
        to[b] = from[b] > own[b] ? from[b] : own[b];
    }
}

/* to = (((((c0 + c1) + c2) + c3) + c4) + c5) * (1 / 6), numpy's order */
static ALWAYS_INLINE void
row_mean6(double *restrict to, const double *c0, const double *c1, const double *c2,
          const double *c3, const double *c4, const double *c5, const int W)
{
#if defined(__SSE2__)
    if (W % 2 == 0) {
        const __m128d sixth = _mm_set1_pd(1.0 / FACES);
        for (int b = 0; b < W; b += 2) {
            __m128d sum = _mm_add_pd(_mm_loadu_pd(c0 + b), _mm_loadu_pd(c1 + b));
            sum = _mm_add_pd(sum, _mm_loadu_pd(c2 + b));
            sum = _mm_add_pd(sum, _mm_loadu_pd(c3 + b));
            sum = _mm_add_pd(sum, _mm_loadu_pd(c4 + b));
            sum = _mm_add_pd(sum, _mm_loadu_pd(c5 + b));
            _mm_storeu_pd(to + b, _mm_mul_pd(sum, sixth));
        }
        return;
    }
#endif
    for (int b = 0; b < W; b++) {
        to[b] = (((((c0[b] + c1[b]) + c2[b]) + c3[b]) + c4[b]) + c5[b]) * (1.0 / FACES);
    }
}

/*
 * Each box's distinct points (entry e): what scoring them leads to, for W
 * states side by side (ev[e * W + b]; -inf where the box is filled, and for
 * boxes filled in every state nothing is written).  -1 if a choice leads
 * outside the table.  The next state differs between a box's points only in
 * the upper total and the flag.
 */
static ALWAYS_INLINE int
entry_values(const Plan *pl, const double *values, int count, const int *flag,
             const int64_t *mask, const int *upper, int64_t filled_everywhere, const int W,
             double *restrict ev)
{
    for (int c = 0; c < pl->n_cat; c++) {
        if ((filled_everywhere >> c) & 1) {
            continue;
        }
        int first = pl->box_first[c], end = pl->box_first[c + 1];
        int is_upper = pl->threshold && pl->upper_of[c];
        for (int b = 0; b < W; b++) {
            int s = b < count ? b : 0;
            if ((mask[s] >> c) & 1) {
                for (int e = first; e < end; e++) {
                    ev[e * W + b] = -INFINITY;
                }
                continue;
            }
            int64_t new_mask = mask[s] | ((int64_t)1 << c);
            int u = upper[s];
            if (c == pl->flag_cat || is_upper) {
                for (int e = first; e < end; e++) {
                    int reward;
                    int64_t at = step(pl, flag[s], mask[s], u, c, pl->entry_points[e], 0,
                                      &reward);
                    if (at < 0) {
                        return -1;
                    }
                    ev[e * W + b] = (double)reward + values[at];
                }
                continue;
            }
            double next = values[((int64_t)flag[s] * pl->n_masks + new_mask) * pl->n_upper + u];
            for (int e = first; e < end; e++) {
                ev[e * W + b] = (double)pl->entry_points[e] + next;
            }
        }
    }
    return 0;
}

/*
 * The s-th special roll of a state: its best choice's worth (`top`) and the
 * first slot within TIE of it; -1 if a choice leads outside the table.
 */
static int
special_best(const Plan *pl, const double *values, int flag, int64_t mask, int upper,
             const Specials *sp, int s, double *top)
{
    double worth[MAX_SLOTS];
    double best = -INFINITY;
    for (int slot = 0; slot < pl->n_slots; slot++) {
        int i = s * pl->n_slots + slot;
        worth[slot] = -INFINITY;
        if (sp->allowed[i]) {
            int reward;
            int64_t at = step(pl, flag, mask, upper, slot, sp->box[i], sp->bonus[i], &reward);
            if (at < 0) {
                return -1;
            }
            worth[slot] = (double)reward + values[at];
        }
        best = worth[slot] > best ? worth[slot] : best;
    }
    int pick = 0;
    while (pick < pl->n_slots - 1 && !(worth[pick] >= best - TIE)) {
        pick++;
    }
    *top = best;
    return pick;
}

/*
 * The turn of `count` (at most W) states, W side by side (row k of a table
 * holds W values: keep[k * W + b] is keep k of state b); returns 0, or -1 if a
 * choice leads outside the table.  `specials[b]` are state b's special
 * choices (count 0 when its Yahtzee rolls offer the open boxes plainly).
 * `ev` is scratch of MAX_ENTRIES * W values; `keep` (NUM_KEEPS * W) receives
 * the keeps' values with one roll left, the leaves in its rolls' rows, and
 * `second` those with two rolls left: it may be `keep` itself (then overwritten).
 */
static ALWAYS_INLINE int
turn_lanes(const Plan *pl, const double *values, int count, const int *flag,
           const int64_t *mask, const int *upper, const Specials *specials, const Outputs *out,
           Py_ssize_t col, const int W, double *restrict ev, double *keep, double *second)
{
    double *leaf = keep + ROLL_START * W;
    int64_t filled_everywhere = -1;
    for (int b = 0; b < W; b++) {
        filled_everywhere &= mask[b < count ? b : 0];
    }

    if (entry_values(pl, values, count, flag, mask, upper, filled_everywhere, W, ev) < 0) {
        return -1;
    }
    /* each roll: the best box.  Where, in every state, each box's points are worth at
       least its zero (as in Yahtzee: more points, a higher upper total, a Yahtzee), the
       best zero stands for every box a roll scores nothing in, and only the rolls that
       score in a box are looked at there; otherwise every roll and box is. */
    double zero_best[BLOCK];
    int dominated = 1;
    for (int b = 0; b < W; b++) {
        zero_best[b] = -INFINITY;
    }
    for (int c = 0; c < pl->n_cat && dominated; c++) {
        int z = pl->zero_entry[c];
        if (z < 0 || ((filled_everywhere >> c) & 1)) {
            continue;
        }
        for (int b = 0; b < W; b++) {
            double zero = ev[z * W + b];
            zero_best[b] = zero > zero_best[b] ? zero : zero_best[b];
            for (int e = pl->box_first[c]; e < pl->box_first[c + 1]; e++) {
                dominated &= ev[e * W + b] >= zero;
            }
        }
    }
    for (int r = 0; r < NUM_ROLLS; r++) {
        for (int b = 0; b < W; b++) {
            leaf[r * W + b] = dominated ? zero_best[b] : -INFINITY;
        }
    }
    for (int c = 0; c < pl->n_cat; c++) {
        if ((filled_everywhere >> c) & 1) {
            continue;
        }
        const uint8_t *entry = pl->entry_of[c];
        if (dominated) {
            const uint8_t *rolls = pl->scoring_rolls[c];
            for (int i = 0; i < pl->scoring_count[c]; i++) {
                int r = rolls[i];
                row_max(leaf + r * W, leaf + r * W, ev + entry[r] * W, W);
            }
        } else {
            for (int r = 0; r < NUM_ROLLS; r++) {
                row_max(leaf + r * W, leaf + r * W, ev + entry[r] * W, W);
            }
        }
    }
    if (out->choice != NULL) {
        for (int b = 0; b < count; b++) {
            for (int r = 0; r < NUM_ROLLS; r++) {
                int pick = 0;
                for (int c = 0; c < pl->n_cat; c++) {
                    if (!((mask[b] >> c) & 1)
                        && ev[pl->entry_of[c][r] * W + b] >= leaf[r * W + b] - TIE) {
                        pick = c;
                        break;
                    }
                }
                out->choice[r * out->width + col + b] = (int8_t)pick;
            }
        }
    }
    /* the special rolls: the best of their own choices */
    for (int b = 0; b < count; b++) {
        for (int s = 0; s < specials[b].count; s++) {
            double top;
            int pick = special_best(pl, values, flag[b], mask[b], upper[b], &specials[b], s,
                                    &top);
            if (pick < 0) {
                return -1;
            }
            int roll = (int)specials[b].rolls[s];
            leaf[roll * W + b] = top;
            if (out->choice != NULL) {
                out->choice[roll * out->width + col + b] = (int8_t)pick;
            }
        }
    }
    if (out->leaf != NULL) {
        for (int r = 0; r < NUM_ROLLS; r++) {
            for (int b = 0; b < count; b++) {
                out->leaf[r * out->width + col + b] = leaf[r * W + b];
            }
        }
    }

    /* each keep under five dice: the mean of its six children, from the largest down */
    for (int pass = 0; pass < 2; pass++) {
        double *table = pass == 0 ? keep : second;
        for (int k = ROLL_START - 1; k >= 0; k--) {
            const uint16_t *kid = children[k];
            row_mean6(table + k * W, table + kid[0] * W, table + kid[1] * W,
                      table + kid[2] * W, table + kid[3] * W, table + kid[4] * W,
                      table + kid[5] * W, W);
        }
        double *given = pass == 0 ? out->keep1 : out->keep2;
        if (given != NULL && given != table) {
            for (int k = 0; k < NUM_KEEPS; k++) {
                for (int b = 0; b < count; b++) {
                    given[k * out->width + col + b] = table[k * W + b];
                }
            }
        }
        if (pass == 1 && out->start == NULL) {
            break;
        }
        /* each keep: the best value among its sub-keeps, itself included (its parents,
           one die fewer, come before it and are done), into `second` (in place on the
           second pass); the rolls' rows then hold each roll's best keep: the next leaves */
        if (second != table) {
            for (int b = 0; b < W; b++) {
                second[b] = table[b];
            }
        }
        for (int k = 1; k < NUM_KEEPS; k++) {
            double *to = second + k * W;
            row_max(to, table + k * W, second + parents[k][0] * W, W);
            for (int j = 1; j < parent_count[k]; j++) {
                row_max(to, to, second + parents[k][j] * W, W);
            }
        }
    }
    if (out->start != NULL) {
        const double *after = second + ROLL_START * W;
        double total[BLOCK] = {0.0};
        for (int r = 0; r < NUM_ROLLS; r++) {
            for (int b = 0; b < W; b++) {
                total[b] += roll_chance[r] * after[r * W + b];
            }
        }
        for (int b = 0; b < count; b++) {
            out->start[col + b] = total[b];
        }
    }
    return 0;
}

/* turn_lanes for BLOCK states side by side. */
static int
turn_block(const Plan *pl, const double *values, int count, const int *flag,
           const int64_t *mask, const int *upper, const Specials *specials, const Outputs *out,
           Py_ssize_t col)
{
    double ev[MAX_ENTRIES * BLOCK];
    double keep[NUM_KEEPS * BLOCK];
    return turn_lanes(pl, values, count, flag, mask, upper, specials, out, col, BLOCK, ev,
                      keep, keep);
}

/* turn_lanes for one state, straight into its tables out->keep1 and out->keep2 (the
   leaves are the rolls' rows of keep1). */
static int
turn_single(const Plan *pl, const double *values, int flag, int64_t mask, int upper,
            const Specials *specials, const Outputs *out)
{
    double ev[MAX_ENTRIES];
    return turn_lanes(pl, values, 1, &flag, &mask, &upper, specials, out, 0, 1, ev,
                      out->keep1, out->keep2);
}

/* The keeps' means under five dice from the rolls' rows, `W` numbers a keep. */
static ALWAYS_INLINE void
keep_means(double *table, const int W)
{
    for (int k = ROLL_START - 1; k >= 0; k--) {
        const uint16_t *kid = children[k];
        row_mean6(table + k * W, table + kid[0] * W, table + kid[1] * W, table + kid[2] * W,
                  table + kid[3] * W, table + kid[4] * W, table + kid[5] * W, W);
    }
}

/* `best` (`W` numbers a keep): each keep's best value among its sub-keeps in `table`,
   level by level upwards (a keep's parents, one die fewer, come before it). */
static void
best_sub_keeps(const double *table, double *best, const int W)
{
    memcpy(best, table, sizeof(double) * W);
    for (int k = 1; k < NUM_KEEPS; k++) {
        double *to = best + (Py_ssize_t)k * W;
        row_max(to, table + (Py_ssize_t)k * W, best + (Py_ssize_t)parents[k][0] * W, W);
        for (int j = 1; j < parent_count[k]; j++) {
            row_max(to, to, best + (Py_ssize_t)parents[k][j] * W, W);
        }
    }
}

/* The position of the first of the roll's keeps whose value in `table` is within TIE of
   `top`, the best of them (the roll's own row is the roll's value: scoring now). */
static inline int
chosen_keep(const double *table, double top, int roll)
{
    int pick = 0;
    while (pick < sub_keep_count[roll] - 1 && !(table[sub_keeps[roll][pick]] >= top - TIE)) {
        pick++;
    }
    return pick;
}

/* What moments_single works out: the moments, the shape, or both at once. */
enum { ONLY_MOMENTS = 0, ONLY_SHAPE = 1, MOMENTS_AND_SHAPE = 2 };
#define MAX_CARRIED 6  /* numbers carried per keep (padded to an even count for SSE2) */
static const int carried[3] = {4, 2, 6};
static const int tables_of[3] = {3, 3, 5};
static const int results_of[3] = {3, 2, 5};

/* What a final roll's box leads to (`reward` points, then the state `at`), into `q`:
   the numbers of moments_single's `mode`, in numpy's order of operations. */
static ALWAYS_INLINE void
leaf_numbers(int mode, int reward, double value, const double *const tables[5], int64_t at,
             double *q)
{
    int out = 0;
    if (mode != ONLY_SHAPE) {
        q[0] = ((double)((int64_t)reward * reward) + (double)(2 * (int64_t)reward) * value)
               + tables[0][at];
        q[1] = tables[1][at];
        q[2] = tables[2][at];
        q[3] = 0.0;
        out = 3;
    }
    if (mode != ONLY_MOMENTS) {
        /* E[(r + R')^k] from the raw moments after the box, in Horner's form */
        const int in = mode == ONLY_SHAPE ? 1 : 3;
        const double r = (double)reward, m1 = value, m2 = tables[0][at], m3 = tables[in][at],
                     m4 = tables[in + 1][at];
        q[out] = m3 + r * (3 * m2 + r * (3 * m1 + r));
        q[out + 1] = m4 + r * (4 * m3 + r * (6 * m2 + r * (4 * m1 + r)));
        if (mode == MOMENTS_AND_SHAPE) {
            q[5] = 0.0;
        }
    }
}

/* keep_means of `mode`'s carried numbers (a constant width each, for the compiler). */
static void
carried_means(double *table, int mode)
{
    if (mode == ONLY_MOMENTS) {
        keep_means(table, 4);
    } else if (mode == ONLY_SHAPE) {
        keep_means(table, 2);
    } else {
        keep_means(table, 6);
    }
}

/*
 * The moments of one state at a turn's start (see yahtzee/solver/moments.py):
 * following optimal play's choices (a box: the boxes in order, a later one
 * only if better by more than TIE, as numpy's leaf_values; a keep: the first
 * within TIE of the best), from `tables` of the states after the turn.  By
 * `mode`: ONLY_MOMENTS, the mean of the squared points to come and the two
 * chances from (second, bonus, yahtzee); ONLY_SHAPE, the third and fourth raw
 * moments of the points to come from the raw moments (second, third, fourth),
 * as moments.turn_shape; MOMENTS_AND_SHAPE, the five from the five tables
 * (second, bonus, yahtzee, third, fourth).  -1 if a choice leads outside the table.
 */
static int
moments_single(const Plan *pl, const double *values, const double *const tables[5], int flag,
               int64_t mask, int upper, const Specials *specials, int mode, double *result)
{
    double ev[MAX_ENTRIES];
    double keep[NUM_KEEPS], second[NUM_KEEPS];
    double q1[NUM_KEEPS * MAX_CARRIED], q2[NUM_KEEPS * MAX_CARRIED];
    int8_t slot_of[NUM_ROLLS];
    double *leaf = keep + ROLL_START;
    const int W = carried[mode];

    if (entry_values(pl, values, 1, &flag, &mask, &upper, mask, 1, ev) < 0) {
        return -1;
    }
    for (int r = 0; r < NUM_ROLLS; r++) {
        double top = -INFINITY;
        int pick = 0, any = 0;
        for (int c = 0; c < pl->n_cat; c++) {
            if ((mask >> c) & 1) {
                continue;
            }
            double v = ev[pl->entry_of[c][r]];
            if (!any || v > top + TIE) {
                pick = c;
            }
            top = !any || v > top ? v : top;
            any = 1;
        }
        leaf[r] = top;
        slot_of[r] = (int8_t)pick;
    }
    int special_at[NUM_ROLLS];
    for (int r = 0; r < NUM_ROLLS; r++) {
        special_at[r] = -1;
    }
    for (int s = 0; s < specials->count; s++) {
        double top;
        int pick = special_best(pl, values, flag, mask, upper, specials, s, &top);
        if (pick < 0) {
            return -1;
        }
        int roll = (int)specials->rolls[s];
        leaf[roll] = top;
        slot_of[roll] = (int8_t)pick;
        special_at[roll] = s;
    }
    /* what each final roll's box leads to (worked out once per box and points, as the
       roll's box is one of those but for special rolls) */
    double entry_q[MAX_ENTRIES][MAX_CARRIED];
    uint8_t entry_done[MAX_ENTRIES];
    memset(entry_done, 0, sizeof entry_done);
    for (int r = 0; r < NUM_ROLLS; r++) {
        int slot = slot_of[r], s = special_at[r];
        double *q = q1 + (ROLL_START + r) * W;
        int e = s < 0 ? pl->entry_of[slot][r] : -1;
        if (e >= 0 && entry_done[e]) {
            memcpy(q, entry_q[e], sizeof(double) * (size_t)W);
            continue;
        }
        int box = 0, bonus = 0;
        if (s >= 0) {
            box = specials->box[s * pl->n_slots + slot];
            bonus = specials->bonus[s * pl->n_slots + slot];
        } else {
            box = pl->base[r][slot];
        }
        int reward;
        int64_t at = step(pl, flag, mask, upper, slot, box, bonus, &reward);
        if (at < 0) {
            return -1;
        }
        leaf_numbers(mode, reward, values[at], tables, at, q);
        if (e >= 0) {
            memcpy(entry_q[e], q, sizeof(double) * (size_t)W);
            entry_done[e] = 1;
        }
    }
    /* one roll left: the keeps' means, and the keep taken from each roll */
    keep_means(keep, 1);
    carried_means(q1, mode);
    best_sub_keeps(keep, second, 1);
    for (int r = 0; r < NUM_ROLLS; r++) {
        const double *from = q1 + sub_keeps[r][chosen_keep(keep, second[ROLL_START + r], r)] * W;
        memcpy(q2 + (ROLL_START + r) * W, from, sizeof(double) * (size_t)W);
    }
    /* two rolls left: the same from the best keeps' numbers */
    keep_means(second, 1);
    carried_means(q2, mode);
    best_sub_keeps(second, keep, 1);
    double total[MAX_CARRIED] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (int r = 0; r < NUM_ROLLS; r++) {
        const double *from = q2 + sub_keeps[r][chosen_keep(second, keep[ROLL_START + r], r)] * W;
        for (int q = 0; q < W; q++) {
            total[q] += roll_chance[r] * from[q];
        }
    }
    for (int q = 0; q < results_of[mode]; q++) {
        result[q] = total[q];
    }
    return 0;
}

/* Check a state; the flat row of its special tables, or -1 (with an error set). */
static int64_t
check_state(const Plan *pl, int64_t flag, int64_t mask, int64_t upper)
{
    if (!pl->ready) {
        PyErr_SetString(PyExc_RuntimeError, "this plan was not made");
        return -1;
    }
    if (flag < 0 || flag >= pl->n_flags || mask < 0 || mask >= pl->n_masks || upper < 0
        || upper >= pl->n_upper) {
        PyErr_Format(PyExc_ValueError, "no such state (%lld, %lld, %lld)", (long long)flag,
                     (long long)mask, (long long)upper);
        return -1;
    }
    return flag * pl->n_masks + mask;
}

static Specials
table_specials(const Plan *pl, int64_t row)
{
    Specials none = {0, NULL, NULL, NULL, NULL};
    if (pl->n_specials == 0 || !pl->sp_varies[row]) {
        return none;
    }
    Py_ssize_t at = (Py_ssize_t)row * pl->n_specials * pl->n_slots;
    Specials found = {pl->n_specials, pl->sp_rolls, pl->sp_allowed + at, pl->sp_box + at,
                      pl->sp_bonus + at};
    return found;
}

/* Work out `count` states of parallel int64 arrays, BLOCK at a time, without the GIL. */
static int
turn_states(const Plan *pl, const double *values, Py_ssize_t count, const int64_t *flags, const int64_t *masks,
            const int64_t *uppers, const Outputs *out)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        if (check_state(pl, flags[i], masks[i], uppers[i]) < 0) {
            return -1;
        }
    }
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t lo = 0; lo < count && !failed; lo += BLOCK) {
        int n = count - lo < BLOCK ? (int)(count - lo) : BLOCK;
        int flag[BLOCK], upper[BLOCK];
        int64_t mask[BLOCK];
        Specials specials[BLOCK];
        for (int b = 0; b < n; b++) {
            flag[b] = (int)flags[lo + b];
            mask[b] = masks[lo + b];
            upper[b] = (int)uppers[lo + b];
            specials[b] = table_specials(pl, flag[b] * pl->n_masks + mask[b]);
        }
        failed = turn_block(pl, values, n, flag, mask, upper, specials, out, lo) < 0;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_SetString(PyExc_ValueError, "a choice leads outside the value table");
        return -1;
    }
    return 0;
}

static int
state_arrays(PyObject *o_flags, PyObject *o_masks, PyObject *o_uppers, Py_buffer views[3])
{
    PyObject *objs[3] = {o_flags, o_masks, o_uppers};
    for (int i = 0; i < 3; i++) {
        if (get_buffer(objs[i], &views[i], 8, "states", 0) < 0) {
            for (int j = 0; j < i; j++) {
                PyBuffer_Release(&views[j]);
            }
            return -1;
        }
    }
    if (items(&views[1]) != items(&views[0]) || items(&views[2]) != items(&views[0])) {
        PyErr_SetString(PyExc_ValueError, "the state arrays differ in length");
        for (int j = 0; j < 3; j++) {
            PyBuffer_Release(&views[j]);
        }
        return -1;
    }
    return 0;
}

/* The value table of the model's states (read-only, checked for size). */
static int
value_table(const Plan *pl, PyObject *obj, Py_buffer *view)
{
    if (get_buffer(obj, view, 8, "values", 0) < 0) {
        return -1;
    }
    if (items(view) != pl->n_values) {
        PyErr_SetString(PyExc_ValueError, "the value table does not fit the model");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/*
 * Work out states given as three int64 arrays into output tables of `rows[i]`
 * items of `itemsize[i]` bytes per state (None: not wanted); with `starts`, the
 * one output is each state's expected points to come, else the outputs are
 * leaf, keep1, keep2 and choice.
 */
static PyObject *
run_states(Plan *self, PyObject *args, int starts)
{
    PyObject *o_values, *o_st[3], *o_out[4] = {Py_None, Py_None, Py_None, Py_None};
    static const Py_ssize_t start_rows[1] = {1}, start_size[1] = {8};
    static const Py_ssize_t turn_rows[4] = {NUM_ROLLS, NUM_KEEPS, NUM_KEEPS, NUM_ROLLS};
    static const Py_ssize_t turn_size[4] = {8, 8, 8, 1};
    int n = starts ? 1 : 4;
    const Py_ssize_t *rows = starts ? start_rows : turn_rows;
    const Py_ssize_t *itemsize = starts ? start_size : turn_size;
    int parsed = starts ? PyArg_ParseTuple(args, "OOOOO", &o_values, &o_st[0], &o_st[1],
                                           &o_st[2], &o_out[0])
                        : PyArg_ParseTuple(args, "OOOOOOOO", &o_values, &o_st[0], &o_st[1],
                                           &o_st[2], &o_out[0], &o_out[1], &o_out[2],
                                           &o_out[3]);
    if (!parsed) {
        return NULL;
    }
    Py_buffer values, st[3], views[4];
    void *bufs[4] = {NULL, NULL, NULL, NULL};
    int taken[4] = {0, 0, 0, 0};
    int result = -1;
    if (value_table(self, o_values, &values) < 0) {
        return NULL;
    }
    if (state_arrays(o_st[0], o_st[1], o_st[2], st) < 0) {
        PyBuffer_Release(&values);
        return NULL;
    }
    Py_ssize_t width = items(&st[0]);
    for (int i = 0; i < n; i++) {
        if (o_out[i] == Py_None && !(i == 0 && starts)) {
            continue;
        }
        if (get_buffer(o_out[i], &views[i], itemsize[i], "output", 1) < 0) {
            goto done;
        }
        taken[i] = 1;
        bufs[i] = views[i].buf;
        if (items(&views[i]) != rows[i] * width) {
            PyErr_SetString(PyExc_ValueError, "an output table does not fit the states");
            goto done;
        }
    }
    {
        Outputs start_out = {bufs[0], NULL, NULL, NULL, NULL, width};
        Outputs turn_out = {NULL, bufs[0], bufs[1], bufs[2], bufs[3], width};
        result = turn_states(self, values.buf, width, st[0].buf, st[1].buf, st[2].buf,
                             starts ? &start_out : &turn_out);
    }
done:
    for (int i = 0; i < n; i++) {
        if (taken[i]) {
            PyBuffer_Release(&views[i]);
        }
    }
    for (int i = 0; i < 3; i++) {
        PyBuffer_Release(&st[i]);
    }
    PyBuffer_Release(&values);
    if (result < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
Plan_start(Plan *self, PyObject *args)
{
    return run_states(self, args, 1);
}

static PyObject *
Plan_turn(Plan *self, PyObject *args)
{
    return run_states(self, args, 0);
}

/*
 * turn_one(values, flag, mask, upper, out, choice[, rolls, allowed, box, bonus]): one
 * state's keep1 and keep2 (462 + 462 values in `out`; the leaves are keep1's rolls'
 * rows) and choices (None: not wanted); the
 * optional arrays are its special rolls and their choices (rolls x slots), in place
 * of the plan's tables.
 */
static PyObject *
Plan_turn_one(Plan *self, PyObject *args)
{
    long long flag, mask, upper;
    PyObject *o_values, *o_out, *o_choice;
    PyObject *o_sp[4] = {Py_None, Py_None, Py_None, Py_None};
    if (!PyArg_ParseTuple(args, "OLLLOO|OOOO", &o_values, &flag, &mask, &upper, &o_out,
                          &o_choice, &o_sp[0], &o_sp[1], &o_sp[2], &o_sp[3])) {
        return NULL;
    }
    int64_t row = check_state(self, flag, mask, upper);
    if (row < 0) {
        return NULL;
    }
    Py_buffer values, out_view, choice_view, sp[4];
    int got = 0, result = -1, have_out = 0, have_choice = 0;
    Specials specials = {0, NULL, NULL, NULL, NULL};
    if (value_table(self, o_values, &values) < 0) {
        return NULL;
    }
    have_out = get_buffer(o_out, &out_view, 8, "out", 1) == 0;
    if (!have_out) {
        goto done;
    }
    if (o_choice != Py_None) {
        have_choice = get_buffer(o_choice, &choice_view, 1, "choice", 1) == 0;
        if (!have_choice) {
            goto done;
        }
    }
    if (items(&out_view) != 2 * NUM_KEEPS
        || (have_choice && items(&choice_view) != NUM_ROLLS)) {
        PyErr_SetString(PyExc_ValueError, "turn_one: wrong output sizes");
        goto done;
    }
    if (o_sp[0] != Py_None) {
        Py_ssize_t sizes[4] = {8, 1, 2, 2};
        for (; got < 4; got++) {
            if (get_buffer(o_sp[got], &sp[got], sizes[got], "specials", 0) < 0) {
                goto done;
            }
        }
        Py_ssize_t n = items(&sp[0]);
        const int64_t *rolls = sp[0].buf;
        int fits = n <= MAX_SPECIALS;
        for (int i = 1; i < 4; i++) {
            fits = fits && items(&sp[i]) == n * self->n_slots;
        }
        for (Py_ssize_t i = 0; fits && i < n; i++) {
            fits = rolls[i] >= 0 && rolls[i] < NUM_ROLLS;
        }
        if (!fits) {
            PyErr_SetString(PyExc_ValueError, "turn_one: special arrays that do not fit");
            goto done;
        }
        Specials given = {(int)n, rolls, sp[1].buf, sp[2].buf, sp[3].buf};
        specials = given;
    } else {
        specials = table_specials(self, row);
    }
    {
        double *buf = out_view.buf;
        Outputs out = {NULL, NULL, buf, buf + NUM_KEEPS, have_choice ? choice_view.buf : NULL,
                       1};
        result = turn_single(self, values.buf, (int)flag, mask, (int)upper, &specials, &out);
        if (result < 0) {
            PyErr_SetString(PyExc_ValueError, "a choice leads outside the value table");
        }
    }
done:
    for (int i = 0; i < got; i++) {
        PyBuffer_Release(&sp[i]);
    }
    if (have_choice) {
        PyBuffer_Release(&choice_view);
    }
    if (have_out) {
        PyBuffer_Release(&out_view);
    }
    PyBuffer_Release(&values);
    if (result < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/*
 * The slot where a state scores a roll: the first choice within TIE of the best
 * (points, upper bonus and what is to come), the roll's special choices where
 * the plan's tables say they vary, else the open boxes at their own points.
 * -1 when there is no choice (a full card), -2 when a choice leads outside the
 * table.
 */
static int
box_choice(const Plan *pl, const double *values, int flag, int64_t mask, int upper, int roll)
{
    double worth[MAX_SLOTS];
    double top = -INFINITY;
    int slots = pl->n_cat;
    const uint8_t *allowed = NULL;
    const int16_t *box = NULL, *bonus = NULL;
    int64_t row = (int64_t)flag * pl->n_masks + mask;
    if (pl->n_specials > 0 && pl->sp_varies[row]) {
        for (int s = 0; s < pl->n_specials; s++) {
            if (pl->sp_rolls[s] == roll) {
                Py_ssize_t at = ((Py_ssize_t)row * pl->n_specials + s) * pl->n_slots;
                allowed = pl->sp_allowed + at;
                box = pl->sp_box + at;
                bonus = pl->sp_bonus + at;
                slots = pl->n_slots;
            }
        }
    }
    for (int slot = 0; slot < slots; slot++) {
        int open = allowed != NULL ? allowed[slot] : !((mask >> slot) & 1);
        worth[slot] = -INFINITY;
        if (open) {
            int reward;
            int64_t at = step(pl, flag, mask, upper, slot,
                              allowed != NULL ? box[slot] : pl->base[roll][slot],
                              allowed != NULL ? bonus[slot] : 0, &reward);
            if (at < 0) {
                return -2;
            }
            worth[slot] = (double)reward + values[at];
            top = worth[slot] > top ? worth[slot] : top;
        }
    }
    for (int slot = 0; slot < slots; slot++) {
        if (worth[slot] != -INFINITY && worth[slot] >= top - TIE) {
            return slot;
        }
    }
    return -1;
}

/* best_box(values, flag, mask, upper, roll): box_choice of one state and roll. */
static PyObject *
Plan_best_box(Plan *self, PyObject *args)
{
    PyObject *o_values;
    long long flag, mask, upper;
    int roll;
    Py_buffer values;
    if (!PyArg_ParseTuple(args, "OLLLi", &o_values, &flag, &mask, &upper, &roll)) {
        return NULL;
    }
    if (check_state(self, flag, mask, upper) < 0) {
        return NULL;
    }
    if (roll < 0 || roll >= NUM_ROLLS) {
        PyErr_Format(PyExc_ValueError, "no roll %d", roll);
        return NULL;
    }
    if (value_table(self, o_values, &values) < 0) {
        return NULL;
    }
    int pick = box_choice(self, values.buf, (int)flag, mask, (int)upper, roll);
    PyBuffer_Release(&values);
    if (pick == -2) {
        PyErr_SetString(PyExc_ValueError, "a choice leads outside the value table");
        return NULL;
    }
    return PyLong_FromLong(pick);
}

/* best_boxes(values, flags, masks, uppers, rolls, out): box_choice of each game (int64). */
static PyObject *
Plan_best_boxes(Plan *self, PyObject *args)
{
    PyObject *o_values, *o_st[3], *o_rolls, *o_out;
    Py_buffer values, st[3], rolls, out;
    if (!PyArg_ParseTuple(args, "OOOOOO", &o_values, &o_st[0], &o_st[1], &o_st[2], &o_rolls,
                          &o_out)) {
        return NULL;
    }
    if (value_table(self, o_values, &values) < 0) {
        return NULL;
    }
    if (state_arrays(o_st[0], o_st[1], o_st[2], st) < 0) {
        PyBuffer_Release(&values);
        return NULL;
    }
    int have_rolls = get_buffer(o_rolls, &rolls, 8, "rolls", 0) == 0;
    int have_out = have_rolls && get_buffer(o_out, &out, 8, "out", 1) == 0;
    Py_ssize_t games = items(&st[0]);
    int failed = !have_out;
    if (have_out && (items(&rolls) != games || items(&out) != games)) {
        PyErr_SetString(PyExc_ValueError, "best_boxes: one roll and one answer per game");
        failed = 1;
    }
    const int64_t *flags = st[0].buf, *masks = st[1].buf, *uppers = st[2].buf;
    const int64_t *roll = have_rolls ? rolls.buf : NULL;
    for (Py_ssize_t i = 0; !failed && i < games; i++) {
        if (check_state(self, flags[i], masks[i], uppers[i]) < 0) {
            failed = 1;
        } else if (roll[i] < 0 || roll[i] >= NUM_ROLLS) {
            PyErr_SetString(PyExc_ValueError, "best_boxes: no such roll");
            failed = 1;
        }
    }
    if (!failed) {
        int64_t *answer = out.buf;
        int outside = 0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < games; i++) {
            answer[i] = box_choice(self, values.buf, (int)flags[i], masks[i], (int)uppers[i],
                                   (int)roll[i]);
            outside |= answer[i] == -2;
        }
        Py_END_ALLOW_THREADS
        if (outside) {
            PyErr_SetString(PyExc_ValueError, "a choice leads outside the value table");
            failed = 1;
        }
    }
    if (have_out) {
        PyBuffer_Release(&out);
    }
    if (have_rolls) {
        PyBuffer_Release(&rolls);
    }
    for (int i = 0; i < 3; i++) {
        PyBuffer_Release(&st[i]);
    }
    PyBuffer_Release(&values);
    if (failed) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/*
 * moments_single of each state of `mode` into out (results_of[mode], B): the arguments
 * are values, the tables_of[mode] tables of the states after the turn, flags, masks,
 * uppers and out.
 */
static PyObject *
moments_states(Plan *self, PyObject *args, int mode)
{
    const int n_tables = tables_of[mode] + 1, n_results = results_of[mode];
    PyObject *o_st[3], *o_out;
    Py_buffer tables[6], st[3], out;
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != n_tables + 4) {
        PyErr_Format(PyExc_TypeError, "%d arguments expected", n_tables + 4);
        return NULL;
    }
    for (int i = 0; i < 3; i++) {
        o_st[i] = PyTuple_GET_ITEM(args, n_tables + i);
    }
    o_out = PyTuple_GET_ITEM(args, n_tables + 3);
    int got = 0, failed = 1, have_states = 0, have_out = 0;
    for (; got < n_tables; got++) {
        if (value_table(self, PyTuple_GET_ITEM(args, got), &tables[got]) < 0) {
            goto done;
        }
    }
    have_states = state_arrays(o_st[0], o_st[1], o_st[2], st) == 0;
    have_out = have_states && get_buffer(o_out, &out, 8, "out", 1) == 0;
    if (!have_out) {
        goto done;
    }
    Py_ssize_t count = items(&st[0]);
    if (items(&out) != n_results * count) {
        PyErr_Format(PyExc_ValueError, "moments: %d numbers per state expected", n_results);
        goto done;
    }
    const int64_t *flags = st[0].buf, *masks = st[1].buf, *uppers = st[2].buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (check_state(self, flags[i], masks[i], uppers[i]) < 0) {
            goto done;
        }
    }
    {
        const double *after[5] = {NULL, NULL, NULL, NULL, NULL};
        for (int t = 1; t < n_tables; t++) {
            after[t - 1] = tables[t].buf;
        }
        double *numbers = out.buf;
        int outside = 0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < count && !outside; i++) {
            double result[5];
            Specials specials = table_specials(self, flags[i] * self->n_masks + masks[i]);
            outside = moments_single(self, tables[0].buf, after, (int)flags[i], masks[i],
                                     (int)uppers[i], &specials, mode, result) < 0;
            for (int q = 0; q < n_results; q++) {
                numbers[q * count + i] = result[q];
            }
        }
        Py_END_ALLOW_THREADS
        if (outside) {
            PyErr_SetString(PyExc_ValueError, "a choice leads outside the value table");
            goto done;
        }
    }
    failed = 0;
done:
    if (have_out) {
        PyBuffer_Release(&out);
    }
    if (have_states) {
        for (int i = 0; i < 3; i++) {
            PyBuffer_Release(&st[i]);
        }
    }
    for (int i = 0; i < got; i++) {
        PyBuffer_Release(&tables[i]);
    }
    if (failed) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* moments(values, second, bonus, yahtzee, flags, masks, uppers, out (3, B)) */
static PyObject *
Plan_moments(Plan *self, PyObject *args)
{
    return moments_states(self, args, ONLY_MOMENTS);
}

/* shape(values, second, third, fourth, flags, masks, uppers, out (2, B)): the raw moments */
static PyObject *
Plan_shape(Plan *self, PyObject *args)
{
    return moments_states(self, args, ONLY_SHAPE);
}

/* moments_shape(values, second, bonus, yahtzee, third, fourth, flags, masks, uppers,
   out (5, B)): both in one pass */
static PyObject *
Plan_moments_shape(Plan *self, PyObject *args)
{
    return moments_states(self, args, MOMENTS_AND_SHAPE);
}

static void
Plan_release(Plan *self)
{
    if (self->has_views) {
        PyBuffer_Release(&self->allowed_view);
        PyBuffer_Release(&self->box_view);
        PyBuffer_Release(&self->bonus_view);
        PyBuffer_Release(&self->varies_view);
        self->has_views = 0;
    }
    self->ready = 0;
    self->n_specials = 0;
    self->sp_allowed = NULL;
    self->sp_box = self->sp_bonus = NULL;
    self->sp_varies = NULL;
}

static void
Plan_dealloc(Plan *self)
{
    Plan_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/*
 * Plan(sizes, upper_of, entry_box, entry_points, entry_of, special_rolls, allowed, box,
 *      bonus, varies, base)
 * sizes: int64 [n_cat, n_flags, n_masks, n_upper, threshold, upper_bonus, flag_cat,
 * bonus_levels]; entry_box and entry_points: each box's distinct points, listed once;
 * entry_of: (n_cat, 252) the entry of each box and roll; the special tables have one
 * row per (flag, mask), and may be empty when there are no special rolls; base: (252, n_cat)
 * what each roll scores in each box by the box's own rule.
 */
static int
Plan_init(Plan *self, PyObject *args, PyObject *kwds)
{
    PyObject *o[11];
    Py_buffer small[7];
    static const char *names[7] = {"sizes", "upper_of", "entry_box", "entry_points",
                                   "entry_of", "special rolls", "base"};
    (void)kwds;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &o[7], &o[8], &o[9], &o[10])) {
        return -1;
    }
    if (!keeps_ready) {
        PyErr_SetString(PyExc_RuntimeError, "set_keeps() must be called first");
        return -1;
    }
    Plan_release(self);
    int got = 0, ok = 0;
    for (; got < 7; got++) {
        if (get_buffer(o[got < 6 ? got : 10], &small[got], 8, names[got], 0) < 0) {
            goto fail;
        }
    }
    const int64_t *sizes = small[0].buf;
    if (items(&small[0]) != 8) {
        PyErr_SetString(PyExc_ValueError, "sizes: eight numbers expected");
        goto fail;
    }
    self->n_cat = (int)sizes[0];
    self->n_slots = self->n_cat + 1;
    self->n_flags = (int)sizes[1];
    self->n_masks = sizes[2];
    self->n_upper = (int)sizes[3];
    self->threshold = (int)sizes[4];
    self->upper_bonus = (int)sizes[5];
    self->flag_cat = (int)sizes[6];
    self->bonus_levels = (int)sizes[7];
    self->n_entries = (int)items(&small[2]);
    self->n_specials = (int)items(&small[5]);
    if (sizes[0] < 1 || sizes[0] > MAX_CATEGORIES || sizes[1] < 1 || sizes[1] > 64
        || self->n_masks != ((int64_t)1 << self->n_cat) || sizes[3] < 1 || sizes[3] > 4096
        || sizes[4] < 0 || (self->threshold && self->n_upper != self->threshold + 1)
        || (!self->threshold && self->n_upper != 1) || sizes[6] < -1 || sizes[6] >= sizes[0]
        || sizes[5] < 0 || sizes[5] > 1000000 || sizes[7] < 1
        || items(&small[1]) != self->n_cat || items(&small[3]) != self->n_entries
        || self->n_entries > MAX_ENTRIES || items(&small[4]) != self->n_cat * NUM_ROLLS
        || self->n_specials > MAX_SPECIALS || items(&small[6]) != NUM_ROLLS * self->n_cat) {
        PyErr_SetString(PyExc_ValueError, "inconsistent model sizes");
        goto fail;
    }
    const int64_t *base = small[6].buf;
    for (int i = 0; i < NUM_ROLLS * self->n_cat; i++) {
        if (base[i] < 0 || base[i] > 1000000) {
            PyErr_SetString(PyExc_ValueError, "inconsistent box points");
            goto fail;
        }
        self->base[i / self->n_cat][i % self->n_cat] = (int)base[i];
    }
    self->n_values = (int64_t)self->n_flags * self->n_masks * self->n_upper;
    const int64_t *upper_of = small[1].buf, *entry_box = small[2].buf;
    const int64_t *points = small[3].buf, *entry_of = small[4].buf, *rolls = small[5].buf;
    for (int c = 0; c < self->n_cat; c++) {
        self->upper_of[c] = upper_of[c] != 0;
    }
    self->upper_of[self->n_cat] = 0;
    for (int e = 0; e < self->n_entries; e++) {
        if (entry_box[e] < 0 || entry_box[e] >= self->n_cat || points[e] < 0
            || points[e] > 1000000) {
            PyErr_SetString(PyExc_ValueError, "inconsistent box entries");
            goto fail;
        }
        self->entry_box[e] = (int)entry_box[e];
        self->entry_points[e] = (int)points[e];
    }
    for (int c = 0, e = 0; c <= self->n_cat; c++) {
        self->box_first[c] = e;
        while (e < self->n_entries && entry_box[e] == c) {
            e++;
        }
        if (c == self->n_cat && e != self->n_entries) {
            PyErr_SetString(PyExc_ValueError, "the box entries are not listed box by box");
            goto fail;
        }
    }
    for (int c = 0; c < self->n_cat; c++) {
        self->zero_entry[c] = -1;
        for (int e = self->box_first[c]; e < self->box_first[c + 1]; e++) {
            if (points[e] == 0) {
                self->zero_entry[c] = e;
            }
        }
        self->scoring_count[c] = 0;
        for (int r = 0; r < NUM_ROLLS; r++) {
            int64_t e = entry_of[c * NUM_ROLLS + r];
            if (e < 0 || e >= self->n_entries || entry_box[e] != c) {
                PyErr_SetString(PyExc_ValueError, "inconsistent roll entries");
                goto fail;
            }
            self->entry_of[c][r] = (uint8_t)e;
            if (e != self->zero_entry[c]) {
                self->scoring_rolls[c][self->scoring_count[c]++] = (uint8_t)r;
            }
        }
    }
    for (int s = 0; s < self->n_specials; s++) {
        if (rolls[s] < 0 || rolls[s] >= NUM_ROLLS) {
            PyErr_SetString(PyExc_ValueError, "inconsistent special rolls");
            goto fail;
        }
        self->sp_rolls[s] = rolls[s];
    }
    Py_buffer *views[4] = {&self->allowed_view, &self->box_view, &self->bonus_view,
                           &self->varies_view};
    Py_ssize_t itemsizes[4] = {1, 2, 2, 1};
    int have = 0;
    for (; have < 4; have++) {
        if (get_buffer(o[6 + have], views[have], itemsizes[have], "specials", 0) < 0) {
            break;
        }
    }
    if (have < 4) {
        for (int i = 0; i < have; i++) {
            PyBuffer_Release(views[i]);
        }
        goto fail;
    }
    self->has_views = 1;
    Py_ssize_t rows = (Py_ssize_t)self->n_flags * self->n_masks;
    Py_ssize_t cells = rows * self->n_specials * self->n_slots;
    if (self->n_specials > 0
        && (items(&self->allowed_view) != cells || items(&self->box_view) != cells
            || items(&self->bonus_view) != cells || items(&self->varies_view) != rows)) {
        PyErr_SetString(PyExc_ValueError, "the special tables do not fit the model");
        Plan_release(self);
        goto fail;
    }
    self->sp_allowed = self->allowed_view.buf;
    self->sp_box = self->box_view.buf;
    self->sp_bonus = self->bonus_view.buf;
    self->sp_varies = self->varies_view.buf;
    self->ready = 1;
    ok = 1;
fail:
    for (int i = 0; i < got; i++) {
        PyBuffer_Release(&small[i]);
    }
    return ok ? 0 : -1;
}

/*
 * Parse a method's (flag, mask, upper, buffer...) arguments by `format` ("LLL" then one
 * "O" per buffer, `count` at most 3), check the state (its row in the value table goes to
 * *row) and take the buffers, each of `length` items of sizes[i] bytes (else ValueError:
 * "`name`: `per`").  Returns how many buffers were taken, for release_views; *ok says
 * whether everything fitted (else the error is set).
 */
static int
state_and_buffers(Plan *self, PyObject *args, const char *format, const char *name,
                  int count, const Py_ssize_t *sizes, const int *writable,
                  Py_ssize_t length, const char *per, long long state[3], int64_t *row,
                  Py_buffer *views, int *ok)
{
    PyObject *objs[3] = {NULL, NULL, NULL};
    *ok = 0;
    if (count > 3 || !PyArg_ParseTuple(args, format, &state[0], &state[1], &state[2],
                                       &objs[0], &objs[1], &objs[2])) {
        return 0;
    }
    *row = check_state(self, state[0], state[1], state[2]);
    if (*row < 0) {
        return 0;
    }
    int got = get_buffers(objs, views, count, sizes, name, writable);
    *ok = got == count;
    for (int i = 0; *ok && i < count; i++) {
        if (items(&views[i]) != length) {
            PyErr_Format(PyExc_ValueError, "%s: %s", name, per);
            *ok = 0;
        }
    }
    return got;
}

/*
 * leaf_steps(flag, mask, upper, choice, reward, following): where a state's turn ends
 * when each final roll is scored in the slot `choice` gives (int8, 252): the points it
 * earns, bonuses included, and the flat position of the state it leads to (both int64,
 * 252), as moments.leaf_points and dynamic.step work them out.
 */
static PyObject *
Plan_leaf_steps(Plan *self, PyObject *args)
{
    long long state[3] = {0, 0, 0};
    int64_t row = 0;
    Py_buffer views[3];
    static const Py_ssize_t sizes[3] = {1, 8, 8};
    static const int writable[3] = {0, 1, 1};
    int ok;
    int got = state_and_buffers(self, args, "LLLOOO", "leaf_steps", 3, sizes, writable,
                                NUM_ROLLS, "one number per roll", state, &row, views, &ok);
    long long flag = state[0], mask = state[1], upper = state[2];
    if (ok) {
        const int8_t *choice = views[0].buf;
        int64_t *reward = views[1].buf, *following = views[2].buf;
        Specials specials = table_specials(self, row);
        for (int r = 0; ok && r < NUM_ROLLS; r++) {
            int slot = choice[r];
            if (slot < 0 || slot >= self->n_slots) {
                PyErr_SetString(PyExc_ValueError, "leaf_steps: no such slot");
                ok = 0;
                break;
            }
            int box = slot < self->n_cat ? self->base[r][slot] : 0, bonus = 0, gain;
            for (int s = 0; s < specials.count; s++) {
                if (specials.rolls[s] == r) {
                    box = specials.box[s * self->n_slots + slot];
                    bonus = specials.bonus[s * self->n_slots + slot];
                }
            }
            int64_t at = step(self, (int)flag, mask, (int)upper, slot, box, bonus, &gain);
            if (at < 0) {
                PyErr_SetString(PyExc_ValueError, "a choice leads outside the value table");
                ok = 0;
            }
            reward[r] = gain;
            following[r] = at;
        }
    }
    return release_views(views, got, ok);
}

/*
 * entry_steps(flag, mask, upper, reward, following): where scoring each box's distinct
 * points leads from the state (entry e, in the plan's order: play_to_win's leaf plan), its
 * reward and the flat position of the next state, for the boxes open; the entries of
 * boxes filled get reward 0 and position -1.  Both int64, one number per entry.
 */
static PyObject *
Plan_entry_steps(Plan *self, PyObject *args)
{
    long long state[3] = {0, 0, 0};
    int64_t row = 0;
    Py_buffer views[2];
    static const Py_ssize_t sizes[2] = {8, 8};
    static const int writable[2] = {1, 1};
    int ok;
    int got = state_and_buffers(self, args, "LLLOO", "entry_steps", 2, sizes, writable,
                                self->n_entries, "one number per entry", state, &row, views,
                                &ok);
    long long flag = state[0], mask = state[1], upper = state[2];
    if (ok) {
        int64_t *reward = views[0].buf, *following = views[1].buf;
        for (int c = 0; ok && c < self->n_cat; c++) {
            for (int e = self->box_first[c]; e < self->box_first[c + 1]; e++) {
                int gain = 0;
                int64_t at = -1;
                if (!((mask >> c) & 1)) {
                    at = step(self, (int)flag, mask, (int)upper, c, self->entry_points[e], 0,
                              &gain);
                    if (at < 0) {
                        PyErr_SetString(PyExc_ValueError,
                                        "a choice leads outside the value table");
                        ok = 0;
                    }
                }
                reward[e] = gain;
                following[e] = at;
            }
        }
    }
    return release_views(views, got, ok);
}

/*
 * best_entries(mask, worth, best, choice): for each final roll, the best worth among the
 * boxes open in `mask` (worth: float64, one per entry, as entry_steps lists them) and the
 * box giving it (int8), the boxes taken in order: a later box wins only when more than
 * TIE better than every earlier one (play_to_win._best_boxes).  A full card: -inf, box 0.
 */
static PyObject *
Plan_best_entries(Plan *self, PyObject *args)
{
    long long mask;
    PyObject *objs[3];
    Py_buffer views[3];
    static const Py_ssize_t sizes[3] = {8, 8, 1};
    static const int writable[3] = {0, 1, 1};
    if (!PyArg_ParseTuple(args, "LOOO", &mask, &objs[0], &objs[1], &objs[2])) {
        return NULL;
    }
    if (check_state(self, 0, mask, 0) < 0) {
        return NULL;
    }
    int got = get_buffers(objs, views, 3, sizes, "best_entries", writable);
    int ok = got == 3;
    if (ok && (items(&views[0]) != self->n_entries || items(&views[1]) != NUM_ROLLS
               || items(&views[2]) != NUM_ROLLS)) {
        PyErr_SetString(PyExc_ValueError, "best_entries: arrays that do not fit");
        ok = 0;
    }
    if (ok) {
        const double *worth = views[0].buf;
        double *best = views[1].buf;
        int8_t *choice = views[2].buf;
        for (int r = 0; r < NUM_ROLLS; r++) {
            double so_far = -INFINITY;
            int pick = 0, first = 1;
            for (int c = 0; c < self->n_cat; c++) {
                if ((mask >> c) & 1) {
                    continue;
                }
                double v = worth[self->entry_of[c][r]];
                if (first) {
                    pick = v > -INFINITY ? c : 0;
                    first = 0;
                } else if (v > so_far + TIE) {
                    pick = c;
                }
                so_far = v > so_far ? v : so_far;
            }
            best[r] = so_far;
            choice[r] = (int8_t)pick;
        }
    }
    return release_views(views, got, ok);
}

/*
 * turn_ends(keep1, leaf, one, two): what a turn's ends carry back to its keeps under
 * optimal play, `width` numbers a row side by side (leaf (252, width); one and two
 * (462, width), written): `one` is each keep's mean of `leaf` over the missing dice (one
 * roll left); `two` the same mean of `one` read at the keep optimal play takes from each
 * roll (two rolls left), the first of the roll's keeps within TIE of the best in `keep1`
 * (462: optimal play's keep values with one roll left).  In numpy's order of operations
 * (keeps.expected_over_keeps, moments.at_chosen_keeps), so the numbers are numpy's.
 */
static PyObject *
turn_ends(PyObject *self, PyObject *args)
{
    PyObject *objs[4];
    Py_buffer views[4];
    static const Py_ssize_t sizes[4] = {8, 8, 8, 8};
    static const int writable[4] = {0, 0, 1, 1};
    (void)self;
    if (!keeps_ready) {
        PyErr_SetString(PyExc_RuntimeError, "set_keeps() must be called first");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOOO", &objs[0], &objs[1], &objs[2], &objs[3])) {
        return NULL;
    }
    int got = get_buffers(objs, views, 4, sizes, "turn_ends", writable);
    int ok = got == 4;
    Py_ssize_t width = ok ? items(&views[1]) / NUM_ROLLS : 0;
    if (ok && (width < 1 || width > 64 || items(&views[0]) != NUM_KEEPS
               || items(&views[1]) != NUM_ROLLS * width || items(&views[2]) != NUM_KEEPS * width
               || items(&views[3]) != NUM_KEEPS * width)) {
        PyErr_SetString(PyExc_ValueError, "turn_ends: arrays that do not fit");
        ok = 0;
    }
    if (ok) {
        const double *keep1 = views[0].buf, *leaf = views[1].buf;
        double *one = views[2].buf, *two = views[3].buf;
        const int W = (int)width;
        Py_BEGIN_ALLOW_THREADS
        memcpy(one + (Py_ssize_t)ROLL_START * W, leaf, sizeof(double) * NUM_ROLLS * W);
        keep_means(one, W);
        for (int r = 0; r < NUM_ROLLS; r++) {
            double top = -INFINITY;
            for (int j = 0; j < sub_keep_count[r]; j++) {
                double worth = keep1[sub_keeps[r][j]];
                top = worth > top ? worth : top;
            }
            int kept = sub_keeps[r][chosen_keep(keep1, top, r)];
            memcpy(two + (Py_ssize_t)(ROLL_START + r) * W, one + (Py_ssize_t)kept * W,
                   sizeof(double) * W);
        }
        keep_means(two, W);
        Py_END_ALLOW_THREADS
    }
    return release_views(views, got, ok);
}

/*
 * turn_keeps(leaf, keep1, keep2): the keeps of a turn whose final rolls are worth `leaf`
 * (252, width), `width` numbers a row side by side; keep1 and keep2 (462, width) are
 * written.  `keep1` is each keep's mean of `leaf` over the missing dice (one roll left),
 * `keep2` each keep's mean, over the missing dice, of the best of the sub-keeps in `keep1`
 * of the roll thrown (two rolls left); the rolls' own rows are `leaf` and those bests.
 * The numbers of keeps.expected_over_keeps and keeps.best_sub_keep, summed in the same
 * order, for leaves that are finite or -inf (a NaN is not carried as np.maximum carries
 * it): play_to_win.turn_worth's keeps.
 */
static PyObject *
turn_keeps(PyObject *self, PyObject *args)
{
    PyObject *objs[3];
    Py_buffer views[3];
    static const Py_ssize_t sizes[3] = {8, 8, 8};
    static const int writable[3] = {0, 1, 1};
    (void)self;
    if (!keeps_ready) {
        PyErr_SetString(PyExc_RuntimeError, "set_keeps() must be called first");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOO", &objs[0], &objs[1], &objs[2])) {
        return NULL;
    }
    int got = get_buffers(objs, views, 3, sizes, "turn_keeps", writable);
    int ok = got == 3;
    Py_ssize_t width = ok ? items(&views[0]) / NUM_ROLLS : 0;
    if (ok && (width < 1 || width > INT32_MAX / NUM_KEEPS
               || items(&views[0]) != NUM_ROLLS * width
               || items(&views[1]) != NUM_KEEPS * width || items(&views[2]) != NUM_KEEPS * width)) {
        PyErr_SetString(PyExc_ValueError, "turn_keeps: arrays that do not fit");
        ok = 0;
    }
    if (ok) {
        const double *leaf = views[0].buf;
        double *one = views[1].buf, *two = views[2].buf;
        const int W = (int)width;
        Py_BEGIN_ALLOW_THREADS
        memcpy(one + (Py_ssize_t)ROLL_START * W, leaf, sizeof(double) * NUM_ROLLS * W);
        keep_means(one, W);
        best_sub_keeps(one, two, W);  /* the rolls' rows of `two`: each roll's best keep */
        keep_means(two, W);
        Py_END_ALLOW_THREADS
    }
    return release_views(views, got, ok);
}

/* ---- win_chances: the outlook's chance to finish first ---------------------- */

#define KNOWN 1e-9        /* outlook.KNOWN: a variance below it is a score known */
static const double PI = 3.141592653589793;  /* math.pi */
#define MAX_NODES 64
#define MAX_STEPS 64
#define MAX_OTHERS 8

static const double erfc_coef[10] = {
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
    -1.13520398, 1.48851587, -0.82215223, 0.17087277};

/* What a chance is read with: the quadrature's standard nodes and weights, the steps of
   excess kurtosis with the largest skewness at each, and the exact rows (pmf, cdf, and
   each row's possible points with their chances), read in place with their strides. */
typedef struct {
    int nodes, steps;
    double z_nodes[MAX_NODES], z_weights[MAX_NODES];
    double excess_steps[MAX_STEPS], skew_limits[MAX_STEPS];
    Py_buffer pmf, cdf, points, chances, size;
    Py_ssize_t rows, length, support;
} Outlook;

static inline double
clip(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* outlook.normal_cdf of one number. */
static double
normal_cdf_one(double z)
{
    double x = fabs(z) / sqrt(2.0);
    double t = 1.0 / (1.0 + 0.5 * x);
    double poly = erfc_coef[9];
    for (int i = 8; i >= 0; i--) {
        poly = poly * t + erfc_coef[i];
    }
    double tail = 0.5 * t * exp(poly - x * x);
    return z >= 0 ? 1.0 - tail : tail;
}

/* np.interp of the excess kurtosis over the steps: the largest skewness allowed. */
static double
skew_limit(const Outlook *o, double excess)
{
    const double *xp = o->excess_steps, *fp = o->skew_limits;
    int last = o->steps - 1;
    if (excess >= xp[last]) {
        return fp[last];
    }
    if (excess <= xp[0]) {
        return fp[0];
    }
    int j = 0;
    while (j < last - 1 && xp[j + 1] <= excess) {
        j++;
    }
    if (xp[j] == excess) {
        return fp[j];
    }
    return (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]) * (excess - xp[j]) + fp[j];
}

/* outlook._standard of one outlook: its spread, skewness and excess kurtosis. */
static void
standard_one(const Outlook *o, double variance, double third, double fourth,
             double *spread, double *skew, double *excess)
{
    int spread_out = variance > KNOWN;
    double s = sqrt(spread_out ? variance : 1.0);
    double e = clip(spread_out ? fourth / pow(s, 4.0) : 0.0, o->excess_steps[0],
                    o->excess_steps[o->steps - 1]);
    double limit = skew_limit(o, e);
    *spread = s;
    *excess = e;
    *skew = clip(spread_out ? third / pow(s, 3.0) : 0.0, -limit, limit);
}

/* outlook.shaped_cdf of one number: the chance to end below x, a tie halved. */
static double
shaped_cdf_one(const Outlook *o, double x, double mean, double variance, double third,
               double fourth)
{
    if (!(variance > KNOWN)) {
        return x > mean ? 1.0 : (x < mean ? 0.0 : 0.5);
    }
    double spread, skew, excess;
    standard_one(o, variance, third, fourth, &spread, &skew, &excess);
    double z = (x - mean) / spread;
    double z2 = z * z;
    double density = exp(-0.5 * z2) / sqrt(2.0 * PI);
    double correction = (skew / 6.0 * (z2 - 1.0) + excess / 24.0 * z * (z2 - 3.0)
                         + skew * skew / 72.0 * z * (z2 * z2 - 10.0 * z2 + 15.0));
    return clip(normal_cdf_one(z) - density * correction, 0.0, 1.0);
}

static inline const char *
cell(const Py_buffer *view, int64_t row, Py_ssize_t k)
{
    return (const char *)view->buf + row * view->strides[0] + k * view->strides[1];
}

static inline double
row_points(const Outlook *o, int64_t row, Py_ssize_t k)
{
    return (double)*(const int16_t *)cell(&o->points, row, k);
}

static inline double
row_chance(const Outlook *o, int64_t row, Py_ssize_t k)
{
    return *(const double *)cell(&o->chances, row, k);
}

/* How many scores a row can end on (within its record's room, whatever the record says). */
static inline Py_ssize_t
row_size(const Outlook *o, int64_t row)
{
    int64_t size = *(const int64_t *)((const char *)o->size.buf + row * o->size.strides[0]);
    return size < 0 ? 0 : (size > o->support ? o->support : (Py_ssize_t)size);
}

/* A player's final score as known now: its cumulants, its points, its exact row (or -1). */
typedef struct {
    double now, mean, variance, third, fourth;
    int64_t row;
} Player;

/* outlook._share_below of one number: the chance that `other` ends below x, a tie halved. */
static double
share_below_one(const Outlook *o, const Player *other, double x)
{
    if (other->row < 0) {
        return shaped_cdf_one(o, x, other->mean, other->variance, other->third, other->fourth);
    }
    double need = x - other->now;
    double whole = floor(need);
    if (!(whole >= 0)) {
        return 0.0;
    }
    Py_ssize_t at = (Py_ssize_t)clip(whole, 0.0, (double)(o->length - 1));
    double at_most = *(const double *)cell(&o->cdf, other->row, at);
    double exactly = (whole < (double)o->length && need == whole)
        ? *(const double *)cell(&o->pmf, other->row, at) : 0.0;
    return at_most - 0.5 * exactly;
}

/* `weight` times the chance that every one of `others` ends below x. */
static inline double
beats_all(const Outlook *o, const Player *others, int count, double x, double weight)
{
    double product = weight;
    for (int r = 0; r < count; r++) {
        product *= share_below_one(o, &others[r], x);
    }
    return product;
}

/* outlook.chance_to_win of one player against `count` others. */
static double
chance_one(const Outlook *o, const Player *me, const Player *others, int count)
{
    double result = 0.0;
    if (me->row >= 0 || !(me->variance > KNOWN)) {
        /* known, or exact: each possible score weighed against the others */
        if (me->row < 0) {
            result = beats_all(o, others, count, me->mean, 1.0);
        } else {
            Py_ssize_t size = row_size(o, me->row);
            for (Py_ssize_t k = 0; k < size; k++) {
                result += beats_all(o, others, count, me->now + row_points(o, me->row, k),
                                    row_chance(o, me->row, k));
            }
        }
    } else if (count == 1) {
        const Player *other = &others[0];
        if (other->row < 0 && other->variance > KNOWN) {
            /* two spread outlooks: the tail of their difference */
            result = 1.0 - shaped_cdf_one(o, 0.0, me->mean - other->mean,
                                          me->variance + other->variance,
                                          me->third - other->third, me->fourth + other->fourth);
        } else if (other->row < 0) {
            result = 1.0 - shaped_cdf_one(o, other->mean, me->mean, me->variance, me->third,
                                          me->fourth);
        } else {
            double below = 0.0;
            Py_ssize_t size = row_size(o, other->row);
            for (Py_ssize_t k = 0; k < size; k++) {
                below += row_chance(o, other->row, k)
                    * shaped_cdf_one(o, other->now + row_points(o, other->row, k), me->mean,
                                     me->variance, me->third, me->fourth);
            }
            result = 1.0 - below;
        }
    } else {
        /* more opponents: quadrature over the player's own expansion */
        double sd, skew, excess, weights[MAX_NODES], total = 0.0;
        standard_one(o, me->variance, me->third, me->fourth, &sd, &skew, &excess);
        for (int j = 0; j < o->nodes; j++) {
            double z = o->z_nodes[j], z2 = z * z;
            double factor = (1.0 + skew / 6.0 * z * (z2 - 3.0)
                             + excess / 24.0 * (z2 * z2 - 6.0 * z2 + 3.0)
                             + skew * skew / 72.0 * (z2 * z2 * z2 - 15.0 * z2 * z2 + 45.0 * z2
                                                     - 15.0));
            weights[j] = o->z_weights[j] * (factor > 0.0 ? factor : 0.0);
            total += weights[j];
        }
        for (int j = 0; j < o->nodes; j++) {
            result += beats_all(o, others, count, me->mean + sd * o->z_nodes[j],
                                weights[j] / total);
        }
    }
    return clip(result, 0.0, 1.0);
}

/* Fill `o`'s tables from the four 1-d float64 objects; 0, or -1 with the error set. */
static int
outlook_tables(Outlook *o, PyObject *nodes, PyObject *weights, PyObject *steps,
               PyObject *limits)
{
    Py_buffer views[4];
    PyObject *objs[4] = {nodes, weights, steps, limits};
    static const Py_ssize_t sizes[4] = {8, 8, 8, 8};
    static const int writable[4] = {0, 0, 0, 0};
    int got = get_buffers(objs, views, 4, sizes, "win_chances", writable);
    int ok = got == 4 && items(&views[0]) == items(&views[1])
        && items(&views[2]) == items(&views[3]) && items(&views[0]) > 0
        && items(&views[0]) <= MAX_NODES && items(&views[2]) > 1
        && items(&views[2]) <= MAX_STEPS;
    if (got == 4 && !ok) {
        PyErr_SetString(PyExc_ValueError, "win_chances: quadrature or steps that do not fit");
    }
    if (ok) {
        o->nodes = (int)items(&views[0]);
        o->steps = (int)items(&views[2]);
        memcpy(o->z_nodes, views[0].buf, sizeof(double) * o->nodes);
        memcpy(o->z_weights, views[1].buf, sizeof(double) * o->nodes);
        memcpy(o->excess_steps, views[2].buf, sizeof(double) * o->steps);
        memcpy(o->skew_limits, views[3].buf, sizeof(double) * o->steps);
    }
    for (int i = 0; i < got; i++) {
        PyBuffer_Release(&views[i]);
    }
    return ok ? 0 : -1;
}

/* Take a strided buffer of `ndim` dimensions and `itemsize`; 0, or -1 with the error set. */
static int
strided(PyObject *obj, Py_buffer *view, int ndim, Py_ssize_t itemsize, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) < 0) {
        return -1;
    }
    if (view->ndim != ndim || view->itemsize != itemsize || view->strides == NULL) {
        PyErr_Format(PyExc_ValueError, "the outlook's %s: wrong shape or items", what);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Take the exact rows (or none, when `pmf` is None); 0, or -1 with the error set. */
static int
outlook_rows(Outlook *o, PyObject **objs)
{
    static const char *names[5] = {"pmf", "cdf", "points", "chances", "size"};
    static const int dims[5] = {2, 2, 2, 2, 1};
    static const Py_ssize_t sizes[5] = {8, 8, 2, 8, 8};
    Py_buffer *views[5] = {&o->pmf, &o->cdf, &o->points, &o->chances, &o->size};
    o->rows = 0;
    if (objs[0] == Py_None) {
        return 0;
    }
    int got = 0;
    while (got < 5 && strided(objs[got], views[got], dims[got], sizes[got], names[got]) == 0) {
        got++;
    }
    int ok = got == 5;
    if (ok) {
        o->rows = o->pmf.shape[0];
        o->length = o->pmf.shape[1];
        o->support = o->points.shape[1];
        ok = o->length > 0 && o->cdf.shape[0] == o->rows && o->cdf.shape[1] == o->length
            && o->points.shape[0] == o->rows && o->chances.shape[0] == o->rows
            && o->chances.shape[1] == o->support && o->size.shape[0] == o->rows;
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "win_chances: exact rows that do not fit");
        }
    }
    if (!ok) {
        for (int i = 0; i < got; i++) {
            PyBuffer_Release(views[i]);
        }
        o->rows = 0;
        return -1;
    }
    return 0;
}

static void
release_rows(Outlook *o, PyObject *pmf)
{
    if (pmf != Py_None) {
        PyBuffer_Release(&o->pmf);
        PyBuffer_Release(&o->cdf);
        PyBuffer_Release(&o->points);
        PyBuffer_Release(&o->chances);
        PyBuffer_Release(&o->size);
    }
}

/* Check the players' and the field's rows and columns; 1 if they fit, else 0 with the
   error set. */
static int
win_fits(const Outlook *o, const int64_t *rows, const int64_t *columns, Py_ssize_t count,
         const int64_t *field_rows, Py_ssize_t others, Py_ssize_t width)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        if (rows[i] < -1 || rows[i] >= o->rows || columns[i] < 0 || columns[i] >= width) {
            PyErr_SetString(PyExc_ValueError, "win_chances: no such row or column");
            return 0;
        }
    }
    for (Py_ssize_t i = 0; i < others * width; i++) {
        if (field_rows[i] < -1 || field_rows[i] >= o->rows) {
            PyErr_SetString(PyExc_ValueError, "win_chances: no such row in the field");
            return 0;
        }
    }
    return 1;
}

/*
 * win_chances(players, rows, columns, field, field_rows, nodes, weights, steps, limits,
 *             pmf, cdf, points, chances, size, out): outlook.chance_to_win, player by player.
 * `players` (5, N) float64 holds each player's points so far, the mean of its final score,
 * its variance, third and fourth cumulants; `rows` (N) its exact row (-1: none) and
 * `columns` (N) its column of the field.  `field` (5, R, B) holds R opponents' numbers in B
 * columns, in another order: the mean of the final score, its variance, third and fourth
 * cumulants, then the points so far; `field_rows` (R, B) their rows.  `nodes` and `weights` are the
 * standard normal quadrature, `steps` and `limits` the excess kurtosis and largest skewness
 * of outlook._standard; pmf, cdf, points, chances and size are LastTurn's row arrays, read
 * in place (strided), or all None when no row is used.  `out` (N) gets the chances.
 */
static PyObject *
win_chances(PyObject *self, PyObject *args)
{
    PyObject *objs[15];
    Py_buffer views[6];
    static const Py_ssize_t sizes[6] = {8, 8, 8, 8, 8, 8};
    static const int writable[6] = {0, 0, 0, 0, 0, 1};
    Outlook o;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOO", &objs[0], &objs[1], &objs[2], &objs[3],
                          &objs[4], &objs[5], &objs[6], &objs[7], &objs[8], &objs[9],
                          &objs[10], &objs[11], &objs[12], &objs[13], &objs[14])) {
        return NULL;
    }
    if (outlook_tables(&o, objs[5], objs[6], objs[7], objs[8]) < 0
            || outlook_rows(&o, objs + 9) < 0) {
        return NULL;
    }
    PyObject *arrays[6] = {objs[0], objs[1], objs[2], objs[3], objs[4], objs[14]};
    int got = get_buffers(arrays, views, 6, sizes, "win_chances", writable);
    int ok = got == 6;
    Py_ssize_t count = ok ? items(&views[1]) : 0;
    Py_ssize_t fields = ok ? items(&views[4]) : 0;
    Py_ssize_t width = 0, others = 0;
    if (ok) {
        /* the field's width: its columns, the largest a player names plus any unused */
        width = fields;
        others = 0;
        if (views[3].ndim == 3) {
            others = views[3].shape[1];
            width = views[3].shape[2];
        }
        ok = items(&views[0]) == 5 * count && items(&views[2]) == count
            && items(&views[5]) == count && views[3].ndim == 3 && views[3].shape[0] == 5
            && others >= 1 && others <= MAX_OTHERS && others * width == fields;
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "win_chances: arrays that do not fit");
        }
    }
    ok = ok && win_fits(&o, views[1].buf, views[2].buf, count, views[4].buf, others, width);
    if (ok) {
        const double *p = views[0].buf, *f = views[3].buf;
        const int64_t *rows = views[1].buf, *columns = views[2].buf, *field_rows = views[4].buf;
        double *out = views[5].buf;
        Py_ssize_t plane = others * width;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < count; i++) {
            Player me = {p[i], p[count + i], p[2 * count + i], p[3 * count + i],
                         p[4 * count + i], rows[i]};
            Player field[MAX_OTHERS];
            for (Py_ssize_t r = 0; r < others; r++) {
                Py_ssize_t at = r * width + columns[i];
                field[r] = (Player){f[4 * plane + at], f[at], f[plane + at], f[2 * plane + at],
                                    f[3 * plane + at], field_rows[at]};
            }
            out[i] = chance_one(&o, &me, field, (int)others);
        }
        Py_END_ALLOW_THREADS
    }
    release_rows(&o, objs[9]);
    return release_views(views, got, ok);
}

/* Read a 1-d strided buffer of `itemsize` (the outlook's columns); 0, or -1 with the error set. */
static int
column(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, const char *what)
{
    return strided(obj, view, 1, itemsize, what);
}

static inline double
column_at(const Py_buffer *view, int64_t at)
{
    const char *item = (const char *)view->buf + at * view->strides[0];
    return view->itemsize == 4 ? (double)*(const float *)item : *(const double *)item;
}

/* Gather every player (P * N, player-major) from its points and state, as outlook.Field.of
   and chance_to_win gather them: 1 when done, 0 when a row is not worked out yet, -1 with
   the error set when an index or a row does not fit. */
static int
gather_players(Player *all, const double *banked, const int64_t *index, Py_ssize_t total,
               Py_buffer cols[4], const Py_buffer *row_of, const Py_buffer *solved,
               Py_ssize_t rows)
{
    Py_ssize_t states = cols[0].shape[0];
    for (Py_ssize_t i = 0; i < total; i++) {
        int64_t at = index[i];
        if (at < 0 || at >= states) {
            PyErr_SetString(PyExc_ValueError, "seat_chances: no such state");
            return -1;
        }
        int64_t row = -1;
        if (row_of != NULL) {
            row = *(const int64_t *)((const char *)row_of->buf + at * row_of->strides[0]);
            if (row < -1 || row >= rows) {
                PyErr_SetString(PyExc_ValueError, "seat_chances: no such row");
                return -1;
            }
            if (row >= 0 && !*((const char *)solved->buf + row * solved->strides[0])) {
                return 0;
            }
        }
        all[i] = (Player){banked[i], banked[i] + column_at(&cols[0], at),
                          column_at(&cols[1], at), column_at(&cols[2], at),
                          column_at(&cols[3], at), row};
    }
    return 1;
}

/* Every seat's chance against the others of its position, from the gathered players. */
static void
seat_loop(const Outlook *o, const Player *all, Py_ssize_t seats, Py_ssize_t count,
          double *out)
{
    for (Py_ssize_t seat = 0; seat < seats; seat++) {
        for (Py_ssize_t n = 0; n < count; n++) {
            Player field[MAX_OTHERS];
            int others = 0;
            for (Py_ssize_t p = 0; p < seats; p++) {
                if (p != seat) {
                    field[others++] = all[p * count + n];
                }
            }
            out[seat * count + n] = chance_one(o, &all[seat * count + n], field, others);
        }
    }
}

/* The outlook's columns, its rows of the table (or None) and their flags of being worked
   out; 0, or -1 with the error set (every view taken released). */
static int
seat_inputs(PyObject **objs, Py_buffer cols[4], Py_buffer *row_of, Py_buffer *solved,
            int *with_rows)
{
    static const char *names[4] = {"mean", "variance", "third", "fourth"};
    int got = 0;
    while (got < 4 && column(objs[got], &cols[got], got < 2 ? 8 : 4, names[got]) == 0) {
        got++;
    }
    int ok = got == 4;
    for (int i = 1; ok && i < 4; i++) {
        ok = cols[i].shape[0] == cols[0].shape[0];
    }
    *with_rows = objs[4] != Py_None;
    if (ok && *with_rows) {
        if (column(objs[4], row_of, 8, "row_of") < 0) {
            ok = 0;
        } else if (column(objs[5], solved, 1, "solved") < 0) {
            PyBuffer_Release(row_of);
            ok = 0;
        } else if (row_of->shape[0] != cols[0].shape[0]) {
            PyBuffer_Release(row_of);
            PyBuffer_Release(solved);
            ok = 0;
        }
    }
    if (got == 4 && !ok && !PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "seat_chances: outlook columns that do not fit");
    }
    if (!ok) {
        for (int i = 0; i < got; i++) {
            PyBuffer_Release(&cols[i]);
        }
    }
    return ok ? 0 : -1;
}

/*
 * seat_chances(banked, index, mean, variance, third, fourth, row_of, solved, nodes, weights,
 *              steps, limits, pmf, cdf, points, chances, size, out): every player's chance
 * to finish first against the others of its position, play_to_win._chances in one call.
 * `banked` (P, N) float64 and `index` (P, N) int64 are each player's points and flat state
 * in each of N positions; mean and variance (float64) and third and fourth (float32) are
 * the outlook's columns by state, row_of (int64) each state's exact row (-1: none) and
 * solved (bool) whether each row is worked out, or both None; the rest as win_chances.
 * `out` (P, N) gets the chances (not scaled to add up to 1).  Returns True, or False
 * (nothing written) when a row the players need is not worked out yet.
 */
static PyObject *
seat_chances(PyObject *self, PyObject *args)
{
    PyObject *objs[18];
    Py_buffer views[3], cols[4], row_of, solved;
    static const Py_ssize_t sizes[3] = {8, 8, 8};
    static const int writable[3] = {0, 0, 1};
    Outlook o;
    int with_rows = 0, done = -1;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOO", &objs[0], &objs[1], &objs[2],
                          &objs[3], &objs[4], &objs[5], &objs[6], &objs[7], &objs[8],
                          &objs[9], &objs[10], &objs[11], &objs[12], &objs[13], &objs[14],
                          &objs[15], &objs[16], &objs[17])) {
        return NULL;
    }
    if (outlook_tables(&o, objs[8], objs[9], objs[10], objs[11]) < 0
            || outlook_rows(&o, objs + 12) < 0) {
        return NULL;
    }
    if (seat_inputs(objs + 2, cols, &row_of, &solved, &with_rows) < 0) {
        release_rows(&o, objs[12]);
        return NULL;
    }
    PyObject *arrays[3] = {objs[0], objs[1], objs[17]};
    int got = get_buffers(arrays, views, 3, sizes, "seat_chances", writable);
    int ok = got == 3 && views[0].ndim == 2 && items(&views[1]) == items(&views[0])
        && items(&views[2]) == items(&views[0]) && views[0].shape[0] >= 2
        && views[0].shape[0] <= MAX_OTHERS + 1
        && (!with_rows || solved.shape[0] == o.rows) && (with_rows || o.rows == 0);
    if (got == 3 && !ok) {
        PyErr_SetString(PyExc_ValueError, "seat_chances: arrays that do not fit");
    }
    Py_ssize_t total = ok ? items(&views[0]) : 0;
    Player *all = ok ? PyMem_Malloc(sizeof(Player) * (total > 0 ? total : 1)) : NULL;
    if (ok && all == NULL) {
        PyErr_NoMemory();
        ok = 0;
    }
    if (ok) {
        done = gather_players(all, views[0].buf, views[1].buf, total, cols,
                              with_rows ? &row_of : NULL, with_rows ? &solved : NULL, o.rows);
        ok = done >= 0;
    }
    if (ok && done == 1) {
        Py_ssize_t seats = views[0].shape[0];
        double *out = views[2].buf;
        Py_BEGIN_ALLOW_THREADS
        seat_loop(&o, all, seats, total / seats, out);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(all);
    for (int i = 0; i < 4; i++) {
        PyBuffer_Release(&cols[i]);
    }
    if (with_rows) {
        PyBuffer_Release(&row_of);
        PyBuffer_Release(&solved);
    }
    release_rows(&o, objs[12]);
    for (int i = 0; i < got; i++) {
        PyBuffer_Release(&views[i]);
    }
    if (!ok) {
        return NULL;
    }
    return PyBool_FromLong(done == 1);
}

static PyMethodDef Plan_methods[] = {
    {"start", (PyCFunction)Plan_start, METH_VARARGS,
     "start(values, flags, masks, uppers, out): each state's expected points to come."},
    {"turn", (PyCFunction)Plan_turn, METH_VARARGS,
     "turn(values, flags, masks, uppers, leaf, keep1, keep2, choice): states' turn tables."},
    {"best_box", (PyCFunction)Plan_best_box, METH_VARARGS,
     "best_box(values, flag, mask, upper, roll): the slot where the state scores the roll."},
    {"best_boxes", (PyCFunction)Plan_best_boxes, METH_VARARGS,
     "best_boxes(values, flags, masks, uppers, rolls, out): each game's slot."},
    {"moments", (PyCFunction)Plan_moments, METH_VARARGS,
     "moments(values, second, bonus, yahtzee, flags, masks, uppers, out): states' moments."},
    {"shape", (PyCFunction)Plan_shape, METH_VARARGS,
     "shape(values, second, third, fourth, flags, masks, uppers, out): raw 3rd, 4th moments."},
    {"moments_shape", (PyCFunction)Plan_moments_shape, METH_VARARGS,
     "moments_shape(values, second, bonus, yahtzee, third, fourth, flags, masks, uppers, out)."},
    {"turn_one", (PyCFunction)Plan_turn_one, METH_VARARGS,
     "turn_one(values, flag, mask, upper, out, choice[, rolls, allowed, box, bonus])."},
    {"leaf_steps", (PyCFunction)Plan_leaf_steps, METH_VARARGS,
     "leaf_steps(flag, mask, upper, choice, reward, following): where each final roll leads."},
    {"entry_steps", (PyCFunction)Plan_entry_steps, METH_VARARGS,
     "entry_steps(flag, mask, upper, reward, following): where each box's points lead."},
    {"best_entries", (PyCFunction)Plan_best_entries, METH_VARARGS,
     "best_entries(mask, worth, best, choice): each final roll's best open box."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "yahtzee.solver._kernel.Plan",
    .tp_doc = "A scoring model's constants and value table, as the kernel reads them.",
    .tp_basicsize = sizeof(Plan),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Plan_init,
    .tp_dealloc = (destructor)Plan_dealloc,
    .tp_methods = Plan_methods,
};

static PyMethodDef module_methods[] = {
    {"set_keeps", set_keeps, METH_VARARGS,
     "set_keeps(children, parents, chances, sub_keeps): the keeps' tables, once."},
    {"best_keep", best_keep, METH_VARARGS,
     "best_keep(table, leaf, roll): the position of the roll's best keep (0: score now)."},
    {"best_keeps", best_keeps, METH_VARARGS,
     "best_keeps(table, leaf, where, rolls, out): each game's best keep position."},
    {"turn_ends", turn_ends, METH_VARARGS,
     "turn_ends(keep1, leaf, one, two): a turn's ends carried back to its keeps."},
    {"turn_keeps", turn_keeps, METH_VARARGS,
     "turn_keeps(leaf, keep1, keep2): a turn's keeps, one and two rolls left, from its leaves."},
    {"win_chances", win_chances, METH_VARARGS,
     "win_chances(players, rows, columns, field, field_rows, nodes, weights, steps, limits, "
     "pmf, cdf, points, chances, size, out): each player's chance to finish first."},
    {"seat_chances", seat_chances, METH_VARARGS,
     "seat_chances(banked, index, mean, variance, third, fourth, row_of, solved, nodes, "
     "weights, steps, limits, pmf, cdf, points, chances, size, out): every seat's chance."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel",
    "The solver's optional compiled kernel: the values inside a turn, state by state.", -1,
    module_methods,
};

PyMODINIT_FUNC
PyInit__kernel(void)
{
    if (PyType_Ready(&PlanType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&kernel_module);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&PlanType);
    if (PyModule_AddObject(module, "Plan", (PyObject *)&PlanType) < 0) {
        Py_DECREF(&PlanType);
        Py_DECREF(module);
        return NULL;
    }
    PyModule_AddIntConstant(module, "BLOCK", BLOCK);
    return module;
}
