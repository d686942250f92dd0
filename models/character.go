package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// Resource is a named, limited resource of a character (spell slots, ki).
type Resource struct {
	Name    string `json:"name"`
	Current int    `json:"current"`
	Max     int    `json:"max"`
}

// DamageDefenses are the damage types a character takes half, no or double
// damage from (5e SRD damage types).
type DamageDefenses struct {
	Resistances     []string `json:"resistances"`
	Immunities      []string `json:"immunities"`
	Vulnerabilities []string `json:"vulnerabilities"`
}

// Attack is one attack on a sheet: a weapon or a spell attack. The sheet
// rules derive its to-hit and damage from the character's numbers.
type Attack struct {
	Name string `json:"name"`
	// Ability is the key (str…cha) whose modifier the attack adds, or empty.
	Ability    string `json:"ability"`
	Proficient bool   `json:"proficient"`
	// Bonus is an extra to-hit bonus (a +1 weapon).
	Bonus int `json:"bonus"`
	// Damage is dice notation without the ability modifier ("1d8").
	Damage     string `json:"damage"`
	DamageType string `json:"damage_type"`
	// AddModifier adds the ability modifier to the damage.
	AddModifier bool `json:"add_modifier"`
}

// Spell is a spell a character knows; its slots are Resources.
type Spell struct {
	Name     string `json:"name"`
	Level    int    `json:"level"`
	Prepared bool   `json:"prepared"`
	Notes    string `json:"notes"`
}

// InventoryItem is a carried item with a quantity.
type InventoryItem struct {
	Name     string `json:"name"`
	Quantity int    `json:"quantity"`
	Notes    string `json:"notes"`
}

// Character is a player character owned by a user. List-valued fields are
// stored as JSON text so both dialects hold them the same way.
type Character struct {
	ID                 int64      `gorm:"primaryKey"`
	OwnerUserID        int64      `gorm:"not null;index"`
	Owner              *User      `gorm:"foreignKey:OwnerUserID;constraint:OnDelete:CASCADE"`
	Name               string     `gorm:"size:80;not null"`
	Level              int        `gorm:"not null;check:ck_characters_level,level BETWEEN 1 AND 20"`
	Str                int        `gorm:"not null;check:ck_characters_str,str BETWEEN 1 AND 30"`
	Dex                int        `gorm:"not null;check:ck_characters_dex,dex BETWEEN 1 AND 30"`
	Con                int        `gorm:"not null;check:ck_characters_con,con BETWEEN 1 AND 30"`
	Int                int        `gorm:"not null;check:ck_characters_int,int BETWEEN 1 AND 30"`
	Wis                int        `gorm:"not null;check:ck_characters_wis,wis BETWEEN 1 AND 30"`
	Cha                int        `gorm:"not null;check:ck_characters_cha,cha BETWEEN 1 AND 30"`
	SkillProficiencies []string   `gorm:"serializer:json;type:text;not null"`
	SkillExpertise     []string   `gorm:"serializer:json;type:text;not null"`
	HPMax              int        `gorm:"column:hp_max;not null;check:ck_characters_hp_max,hp_max >= 0"`
	HPCurrent          int        `gorm:"column:hp_current;not null;check:ck_characters_hp_current,hp_current >= 0 AND hp_current <= hp_max"`
	HPTemp             int        `gorm:"column:hp_temp;not null;check:ck_characters_hp_temp,hp_temp >= 0"`
	Conditions         []string   `gorm:"serializer:json;type:text;not null"`
	Resources          []Resource `gorm:"serializer:json;type:text;not null"`
	Biography          string     `gorm:"type:text;not null"`
	RoleplayGuidance   string     `gorm:"type:text;not null"`
	// Class, species and background are free text ("Fighter 3/Wizard 2").
	Class      string `gorm:"column:character_class;size:80;not null;default:''"`
	Species    string `gorm:"size:80;not null;default:''"`
	Background string `gorm:"size:80;not null;default:''"`
	// SaveProficiencies are ability keys (str…cha).
	SaveProficiencies []string `gorm:"serializer:json;type:text;not null;default:'[]'"`
	// Armor is a key of sheet.Armors or empty; Unarmored the formula
	// without body armor (empty, barbarian, monk, mage_armor); ArmorBonus a
	// flat bonus to AC.
	Armor      string `gorm:"size:40;not null;default:''"`
	Shield     bool   `gorm:"not null;default:false"`
	Unarmored  string `gorm:"size:40;not null;default:''"`
	ArmorBonus int    `gorm:"not null;default:0"`
	// Speed is the walking speed in feet, HitDie the hit die size (6, 8,
	// 10, 12); 0 means not given.
	Speed  int `gorm:"not null;default:0"`
	HitDie int `gorm:"not null;default:0"`
	// InitiativeAdvantage: the sheet rolls initiative with advantage (a
	// class or feat feature).
	InitiativeAdvantage bool `gorm:"not null;default:false"`
	// Defenses are the character's damage resistances, immunities and
	// vulnerabilities.
	Defenses DamageDefenses `gorm:"serializer:json;type:text;not null;default:'{}'"`
	// Attacks, spells and inventory are the sheet's lists, Notes free text.
	Attacks   []Attack        `gorm:"serializer:json;type:text;not null;default:'[]'"`
	Spells    []Spell         `gorm:"serializer:json;type:text;not null;default:'[]'"`
	Inventory []InventoryItem `gorm:"serializer:json;type:text;not null;default:'[]'"`
	Notes     string          `gorm:"type:text;not null;default:''"`
	CreatedAt time.Time       `gorm:"not null"`
	UpdatedAt time.Time       `gorm:"not null"`
}

// CreateCharacter inserts a character.
func (s *Store) CreateCharacter(ctx context.Context, c *Character) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(c).Error, "character")
}

// SaveCharacter writes every field of an existing character.
func (s *Store) SaveCharacter(ctx context.Context, c *Character) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations, "created_at").Save(c).Error, "character")
}

// FindCharacterByID returns a character, or not_found.
func (s *Store) FindCharacterByID(ctx context.Context, id int64) (*Character, error) {
	var c Character
	return &c, translate(s.db.WithContext(ctx).First(&c, id).Error, "character")
}

// FindCharactersOfUser returns a user's characters, oldest first.
func (s *Store) FindCharactersOfUser(ctx context.Context, userID int64) ([]Character, error) {
	var out []Character
	return out, translate(s.db.WithContext(ctx).Where("owner_user_id = ?", userID).Order("id").Find(&out).Error, "characters")
}

// FindCharactersByIDs returns the characters with the given ids in one query.
func (s *Store) FindCharactersByIDs(ctx context.Context, ids []int64) ([]Character, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []Character
	return out, translate(s.db.WithContext(ctx).Where("id IN ?", ids).Find(&out).Error, "characters")
}

// FindCharacterForUpdate returns a character locked for a state change.
func (s *Store) FindCharacterForUpdate(ctx context.Context, id int64) (*Character, error) {
	var c Character
	return &c, translate(lockIf(s.db.WithContext(ctx), true).First(&c, id).Error, "character")
}
