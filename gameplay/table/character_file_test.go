package table_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestCharacterFileRoundTrip: export then import gives a new character of
// the importer with every field of the original.
func TestCharacterFileRoundTrip(t *testing.T) {
	t.Parallel()
	svc, store := newService(t)
	owner := tabletest.NewUser(t, svc, "Owner")
	importer := tabletest.NewUser(t, svc, "Importer")
	in := tabletest.Character("Mira 米拉")
	in.Conditions = []string{"poisoned", "prone"}
	in.HP = table.HP{Max: 31, Current: 17, Temp: 4}
	in.Biography, in.RoleplayGuidance = "Born under a \"red\" moon.\nLine two.", "Speaks softly; <never> lies."
	in.Resources = append(in.Resources, table.ResourceView{Name: "Spell slots (1st)", Current: 1, Max: 4})
	in.Class, in.Species, in.Background = "Monk 3", "Wood elf 木精靈", "Hermit"
	in.SaveProficiencies = []string{"str", "dex"}
	in.Armor = table.ArmorView{Unarmored: "monk", Bonus: 1}
	in.Speed, in.HitDie = 35, 8
	in.Attacks = []table.AttackView{{Name: "Unarmed strike", Ability: "dex", Proficient: true, Bonus: 1, Damage: "1d6", DamageType: "bludgeoning", AddModifier: true}}
	in.Spells = []table.SpellView{{Name: "Light 光", Level: 0, Prepared: true, Notes: "touch"}}
	in.Inventory = []table.ItemView{{Name: "Rations", Quantity: 5, Notes: "days"}}
	in.Notes = "Seeks the \"white\" tower."
	orig, err := svc.CreateCharacter(ctx, owner, in)
	tabletest.Must(t, err)

	file, err := svc.ExportCharacter(ctx, owner, orig.ID)
	tabletest.Must(t, err)
	if file.Format != table.CharacterFormat || file.Version != 1 {
		t.Fatalf("got format %q version %d", file.Format, file.Version)
	}
	data, err := json.Marshal(file)
	tabletest.Must(t, err)
	for _, leak := range []string{`"id"`, "owner", "updated_at", "created_at", "proficiency_bonus"} {
		if strings.Contains(string(data), leak) {
			t.Errorf("file carries %s: %s", leak, data)
		}
	}

	for _, who := range []table.Caller{importer, owner} {
		got, err := svc.ImportCharacter(ctx, who, data)
		tabletest.Must(t, err)
		if got.ID == orig.ID {
			t.Fatalf("import reused id %d", got.ID)
		}
		if diff := cmp.Diff(orig, got, cmp.FilterPath(func(p cmp.Path) bool {
			f := p.Last().String()
			return f == ".ID" || f == ".UpdatedAt"
		}, cmp.Ignore())); diff != "" {
			t.Errorf("imported character (-want +got):\n%s", diff)
		}
		row, err := store.FindCharacterByID(ctx, got.ID)
		tabletest.Must(t, err)
		if row.OwnerUserID != who.UserID {
			t.Errorf("owner %d, want the importer %d", row.OwnerUserID, who.UserID)
		}
	}
	if _, err := svc.GetCharacter(ctx, importer, orig.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("importer reads the original: %v", err)
	}
}

// TestExportCharacterNotOwner: only the owner exports, as only the owner
// reads; anyone else is told the character does not exist.
func TestExportCharacterNotOwner(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	owner := tabletest.NewUser(t, svc, "Owner")
	other := tabletest.NewUser(t, svc, "Other")
	ch, err := svc.CreateCharacter(ctx, owner, tabletest.Character("Mira"))
	tabletest.Must(t, err)
	_, err = svc.ExportCharacter(ctx, other, ch.ID)
	wantCode(t, err, apperr.NotFound)
	_, err = svc.ExportCharacter(ctx, owner, ch.ID+1000)
	wantCode(t, err, apperr.NotFound)
}

// TestImportCharacterBadInput: every refused file writes nothing.
func TestImportCharacterBadInput(t *testing.T) {
	t.Parallel()
	svc, store := newService(t)
	c := tabletest.NewUser(t, svc, "Player")
	good, err := json.Marshal(table.CharacterFile{Format: table.CharacterFormat, Version: 1, Character: tabletest.Character("Mira")})
	tabletest.Must(t, err)
	body := string(good)
	tests := []struct {
		name string
		data string
		want apperr.Code
	}{
		{"ErrUnknownField", strings.Replace(body, `"level":`, `"walk":30,"level":`, 1), apperr.InvalidRequest},
		{"ErrUnknownArmorField", strings.Replace(body, `"shield":false`, `"shield":false,"helmet":true`, 1), apperr.InvalidRequest},
		{"ErrSheetRules", strings.Replace(body, `"hit_die":0`, `"hit_die":20`, 1), apperr.CharacterInvalid},
		{"ErrUnknownTopField", strings.Replace(body, `"version":1`, `"version":1,"id":7`, 1), apperr.InvalidRequest},
		{"ErrDuplicateKey", strings.Replace(body, `"level":3`, `"level":3,"level":20`, 1), apperr.InvalidRequest},
		{"ErrDuplicateKeyOtherCase", strings.Replace(body, `"level":3`, `"level":3,"LEVEL":20`, 1), apperr.InvalidRequest},
		{"ErrDuplicateTopKey", strings.Replace(body, `"version":1`, `"version":1,"version":1`, 1), apperr.InvalidRequest},
		{"ErrWrongVersion", strings.Replace(body, `"version":1`, `"version":2`, 1), apperr.ImportFormatUnsupported},
		{"ErrVersionAsString", strings.Replace(body, `"version":1`, `"version":"1"`, 1), apperr.ImportFormatUnsupported},
		{"ErrWrongFormat", strings.Replace(body, table.CharacterFormat, "chara_card_v2", 1), apperr.ImportFormatUnsupported},
		{"ErrNoHeader", `{"name":"Mira"}`, apperr.ImportFormatUnsupported},
		{"ErrTooBig", strings.Replace(body, `"biography":""`, `"biography":"`+strings.Repeat("a", table.MaxCharacterFileBytes)+`"`, 1), apperr.InvalidRequest},
		{"ErrTrailing", body + `{}`, apperr.InvalidRequest},
		{"ErrNotJSON", body[:len(body)-1], apperr.InvalidRequest},
		{"ErrEmpty", "", apperr.InvalidRequest},
		{"ErrWrongType", strings.Replace(body, `"level":3`, `"level":"3"`, 1), apperr.InvalidRequest},
		{"ErrRules", strings.Replace(body, `"level":3`, `"level":21`, 1), apperr.CharacterInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.ImportCharacter(ctx, c, []byte(tt.data))
			wantCode(t, err, tt.want)
		})
	}
	chars, err := store.FindCharactersOfUser(ctx, c.UserID)
	tabletest.Must(t, err)
	if len(chars) != 0 {
		t.Fatalf("refused files wrote %d characters", len(chars))
	}
	if _, err := svc.ImportCharacter(ctx, c, good); err != nil {
		t.Fatalf("the good file: %v", err)
	}
}

func TestCharacterFileName(t *testing.T) {
	for name, want := range map[string]string{
		"Mira":        "Mira.character.json",
		"米拉":          "米拉.character.json",
		"../etc/pass": ".._etc_pass.character.json",
		`a"b\c`:       "a_b_c.character.json",
		"..":          "character.character.json",
		"  ":          "character.character.json",
	} {
		if got := table.CharacterFileName(name); got != want {
			t.Errorf("CharacterFileName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestCharacterFileBeforeSheetFields: a version-1 file written before the
// sheet fields (class … hit_die, attacks … notes) existed still imports,
// with none of them given: no save proficiencies, AC 10 + Dex, no speed or
// hit dice, no attacks, spells, items or notes.
func TestCharacterFileBeforeSheetFields(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	c := tabletest.NewUser(t, svc, "Player")
	old := `{"format":"adventure-table.character","version":1,"character":{"name":"Mira","level":3,` +
		`"abilities":{"str":10,"dex":14,"con":12,"int":10,"wis":13,"cha":8},"skill_proficiencies":["stealth"],` +
		`"skill_expertise":["stealth"],"hp":{"max":20,"current":20,"temp":0},"conditions":[],` +
		`"resources":[{"name":"Ki","current":3,"max":3}],"biography":"","roleplay_guidance":""}}`
	v, err := svc.ImportCharacter(ctx, c, []byte(old))
	tabletest.Must(t, err)
	if v.Name != "Mira" || v.Class != "" || len(v.SaveProficiencies) != 0 || v.Armor != (table.ArmorView{}) || v.Speed != 0 || v.HitDie != 0 {
		t.Fatalf("imported %+v", v)
	}
	if d := v.Derived; d.AC != 12 || d.Saves["dex"] != 2 || d.Speed != 0 || d.HitDice != "" || d.Skills["stealth"] != 6 {
		t.Fatalf("derived %+v", d)
	}
	if v.Attacks == nil || len(v.Attacks) != 0 || v.Spells == nil || len(v.Spells) != 0 || v.Inventory == nil || len(v.Inventory) != 0 || v.Notes != "" || len(v.Derived.Attacks) != 0 {
		t.Fatalf("lists of a file before them: %+v", v)
	}
}
