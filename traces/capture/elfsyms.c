/* ELF64 symbol tables for captured programs (pmusim/capture.h): the
 * functions and objects of .symtab and .dynsym with a size, placed where the
 * file was mapped.  Every offset and size is checked against the file. */
#include "pmusim/capture.h"

#include <elf.h>
#include <string.h>

/* A table entry [off, off + n * ent) inside the file. */
static gboolean elf_range_ok(gsize flen, uint64_t off, uint64_t n, uint64_t ent)
{
    if (ent && n > (G_MAXUINT64 / ent))
        return FALSE;
    uint64_t bytes = n * ent;
    return off <= flen && bytes <= flen - off;
}

static gboolean elf_bad(const char *path, GError **error, const char *what)
{
    g_set_error(error, PMUSIM_CAPTURE_ERROR, PMUSIM_CAPTURE_ERROR_STREAM, "%s: %s", path, what);
    return FALSE;
}

gboolean pmusim_elf_symbols(const char *path, uint64_t map_start, uint64_t map_offset,
                            pmusim_elf_symbol_fn fn, void *user, GError **error)
{
    GError *e = NULL;
    GMappedFile *mf = g_mapped_file_new(path, FALSE, &e);
    if (!mf) {
        g_set_error(error, PMUSIM_CAPTURE_ERROR, PMUSIM_CAPTURE_ERROR_STREAM, "%s", e->message);
        g_error_free(e);
        return FALSE;
    }
    const uint8_t *f = (const uint8_t *)g_mapped_file_get_contents(mf);
    gsize flen = g_mapped_file_get_length(mf);
    gboolean ok = FALSE;
    Elf64_Ehdr eh;
    if (flen < sizeof eh) {
        elf_bad(path, error, "too short for an ELF header");
        goto out;
    }
    memcpy(&eh, f, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB) {
        elf_bad(path, error, "not a little-endian ELF64 file");
        goto out;
    }
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !elf_range_ok(flen, eh.e_phoff, eh.e_phnum, sizeof(Elf64_Phdr)) ||
        !elf_range_ok(flen, eh.e_shoff, eh.e_shnum, sizeof(Elf64_Shdr))) {
        elf_bad(path, error, "program or section header table outside the file");
        goto out;
    }
    /* the load bias: file offset map_offset is at map_start; in the file's
     * own addresses it is at p_vaddr + (map_offset - p_offset) of the PT_LOAD
     * segment that holds it */
    uint64_t bias = 0;
    gboolean placed = FALSE;
    for (unsigned i = 0; i < eh.e_phnum && !placed; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, f + eh.e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
        uint64_t seg_file_start = ph.p_offset & ~(uint64_t)0xfff;
        if (ph.p_type == PT_LOAD && map_offset >= seg_file_start &&
            map_offset < ph.p_offset + MAX(ph.p_filesz, 1u)) {
            bias = map_start - (ph.p_vaddr - (ph.p_offset - seg_file_start) +
                                (map_offset - seg_file_start));
            placed = TRUE;
        }
    }
    if (!placed) {
        elf_bad(path, error, "no loadable segment holds the mapped offset");
        goto out;
    }
    ok = TRUE;
    for (unsigned i = 0; ok && i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, f + eh.e_shoff + (uint64_t)i * sizeof sh, sizeof sh);
        if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_entsize != sizeof(Elf64_Sym))
            continue;
        if (sh.sh_link >= eh.e_shnum || !elf_range_ok(flen, sh.sh_offset, sh.sh_size, 1))
            continue;
        Elf64_Shdr strh;
        memcpy(&strh, f + eh.e_shoff + (uint64_t)sh.sh_link * sizeof strh, sizeof strh);
        if (!elf_range_ok(flen, strh.sh_offset, strh.sh_size, 1) || strh.sh_size == 0)
            continue;
        const char *strtab = (const char *)f + strh.sh_offset;
        uint64_t nsym = sh.sh_size / sizeof(Elf64_Sym);
        for (uint64_t k = 0; ok && k < nsym; k++) {
            Elf64_Sym sym;
            memcpy(&sym, f + sh.sh_offset + k * sizeof sym, sizeof sym);
            unsigned type = ELF64_ST_TYPE(sym.st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT) ||
                sym.st_shndx == SHN_UNDEF || sym.st_size == 0 || sym.st_name >= strh.sh_size)
                continue;
            /* the name must end inside the string table */
            const char *name = strtab + sym.st_name;
            if (!memchr(name, '\0', strh.sh_size - sym.st_name) || !*name)
                continue;
            uint64_t start = sym.st_value + bias;
            if (start + sym.st_size < start)
                continue;
            ok = fn(start, start + sym.st_size, name, user, error);
        }
    }
out:
    g_mapped_file_unref(mf);
    return ok;
}
